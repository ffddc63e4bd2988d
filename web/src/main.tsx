import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { preloadPath } from "./app/pages";
import { syncAcrossTabs, takeTokenFromHash } from "./state/session";
import "./styles.css";

takeTokenFromHash();
syncAcrossTabs();
if ("scrollRestoration" in history) history.scrollRestoration = "manual";

// The first render waits for the chunks of the page asked for (app/pages.ts), so it draws in one pass.
void preloadPath(location.pathname).then(() =>
  createRoot(document.getElementById("root")!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
