import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import { NearScreenProvider } from "./views/common/RichText.js";
import "./styles.css";

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <NearScreenProvider>
      <App />
    </NearScreenProvider>
  </StrictMode>,
);
