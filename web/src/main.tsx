// Entry point of the schedlab web app: the shell (stores, engine client, controllers), then
// React over it.

import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createShell, startShell } from './app/shell';
import './app/styles.css';

const shell = createShell();
startShell(shell);
createRoot(document.getElementById('root')!).render(<App shell={shell} />);
