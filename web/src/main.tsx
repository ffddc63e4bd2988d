import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { syncAcrossTabs, takeTokenFromHash } from "./state/session";
import "./styles.css";

takeTokenFromHash();
syncAcrossTabs();
if ("scrollRestoration" in history) history.scrollRestoration = "manual";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
