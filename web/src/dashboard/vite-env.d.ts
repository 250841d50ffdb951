// Vite's types for what the dashboard imports besides modules: stylesheets
// (main.tsx) and assets.
/// <reference types="vite/client" />
