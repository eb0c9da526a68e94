//! The CPUs a trace names, and their dense renumbering when it names CPUs past the model's
//! largest host (the module doc of `observe`).

use super::Observed;
use crate::import::record::MAX_CPU;
use crate::replay::decisions::ObsEvent;
use crate::scenario::load::MAX_CPUS;

impl Observed {
    /// Notes that the trace names `cpu` (at most `MAX_CPU`, as every importer guarantees).
    pub(super) fn name_cpu(&mut self, cpu: u32) {
        let i = cpu as usize;
        if self.named.len() <= i {
            self.named.resize(i + 1, false);
            self.last_on_cpu.resize(i + 1, 0);
            self.cpu_cur.resize(i + 1, None);
            self.stopper_woken_by.resize(i + 1, None);
            self.newidle_pending.resize(i + 1, None);
            self.preempting_wakeup.resize(i + 1, None);
        }
        if !self.named[i] {
            self.named[i] = true;
            self.named_count += 1;
            if self.named_count == MAX_CPUS + 1 {
                self.too_many_cpus_at = Some(self.line);
            }
        }
        self.cpus = self.cpus.max(cpu + 1);
    }

    /// A CPU number from a payload (wakeup target, migration destination): named, or None when
    /// it cannot be a CPU (the event is then not replayed).
    pub(super) fn named_cpu(&mut self, cpu: i32) -> Option<u32> {
        let cpu = u32::try_from(cpu).ok().filter(|&c| c <= MAX_CPU)?;
        self.name_cpu(cpu);
        Some(cpu)
    }

    /// When the trace names CPUs past the model's largest host but no more CPUs than it holds,
    /// numbers them densely (see the module docs).
    pub(super) fn renumber_cpus(&mut self) {
        if self.cpus <= MAX_CPUS || self.named_count > MAX_CPUS {
            return;
        }
        let ids: Vec<u32> = (0..self.named.len() as u32).filter(|&c| self.named[c as usize]).collect();
        let mut to = vec![0u32; self.named.len()];
        for (model, &cpu) in ids.iter().enumerate() {
            to[cpu as usize] = model as u32;
        }
        let m = |c: u32| to[c as usize];
        for r in &mut self.runs {
            r.cpu = m(r.cpu);
        }
        for e in &mut self.events {
            match &mut e.ev {
                ObsEvent::Wake { cpu, from, .. } => {
                    *cpu = m(*cpu);
                    *from = m(*from);
                }
                ObsEvent::Switch { cpu, .. }
                | ObsEvent::Yield { cpu, .. }
                | ObsEvent::Vanished { cpu, .. }
                | ObsEvent::Runtime { cpu, .. }
                | ObsEvent::Repick { cpu, .. }
                | ObsEvent::BandwidthTimer { cpu, .. } => *cpu = m(*cpu),
                ObsEvent::Migrate { to, by, .. } => {
                    *to = m(*to);
                    *by = m(*by);
                }
                ObsEvent::Nice { .. } | ObsEvent::Exiting { .. } | ObsEvent::CgroupMove { .. } => {}
            }
        }
        for t in &mut self.tasks {
            t.runtime_on = t.runtime_on.iter().map(|(&c, &ns)| (m(c), ns)).collect();
        }
        self.cpus = ids.len() as u32;
        self.cpu_ids = ids;
    }
}
