// Other runtimes the bench measures beside Arbor. They live in bench/peers with a lockfile of their own,
// installed by `npm run bench:peers`, so the workspace's install (and CI) never carries them.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PEERS = fileURLToPath(new URL("../peers/", import.meta.url));

/** The path of a script in bench/peers when its packages are installed, else undefined. */
export function peerScript(name) {
  return existsSync(`${PEERS}node_modules/@mariozechner/pi-coding-agent/package.json`) ? `${PEERS}${name}` : undefined;
}

/** What a section prints in place of a peer's rows when bench/peers is not installed. */
export const PEERS_MISSING = "pi's rows: not measured, bench/peers is not installed (npm run bench:peers installs it).";
