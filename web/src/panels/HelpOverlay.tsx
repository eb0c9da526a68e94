// The keyboard help overlay (`?`).

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  const keys: [string, string][] = [
    ['W / S', 'zoom in / out around the cursor'],
    ['A / D', 'pan left / right'],
    ['← / →', 'move the cursor'],
    ['[ / ]', 'previous / next scheduler event'],
    ['Space', 'play / pause'],
    ['wheel, drag', 'zoom, pan'],
    ['click', 'set the cursor and select the task under the pointer'],
    ['Ctrl+Enter', 'run the edited scenario'],
    ['L', 'lessons: open / close'],
    [', / .', 'previous / next lesson step'],
    ['?', 'this help'],
    ['Esc', 'close'],
  ];
  return (
    <div className="overlay" role="dialog" aria-label="keyboard help" onClick={onClose}>
      <div className="overlay-box" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard</h2>
        <table>
          <tbody>
            {keys.map(([k, v]) => (
              <tr key={k}>
                <th>{k}</th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          Lanes “relative to V” draw each task's vruntime and deadline as offsets from V (avg_vruntime), the
          zero line. The band between V and vruntime is the lag: green while the task is eligible (lag ≥ 0),
          red while it is not.
        </p>
        <p>
          On several CPUs an arrow between CPU lanes is a migration, from the CPU the task left to the one it
          moved to: dashed teal for a wakeup placement, purple for load balancing (periodic, newly idle, nohz,
          active), orange for affinity and exec moves. Under the CPU lanes each CPU's PELT track shows its
          util_avg (blue area, up to the capacity 1024), load_avg (orange) and nr_running (dashed). The
          inspector's “Why CPU n?” explains each CPU's latest placement, migration and balance pass.
        </p>
        <button onClick={onClose}>close</button>
      </div>
    </div>
  );
}
