// The dashboard's entry point (index.html loads it). jitless comes first:
// it configures Zod before @ag-ui/core builds its schemas.
import './jitless';

import 'sonner/dist/styles.css';
import './styles.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from './App';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
