import { type GitCall, GitRunner } from "../../src/snapshot/git-runner.js";

/** A runner that lists the git commands the snapshots ask for (`add`, `write-tree`, `diff-tree`). */
export class CountingRunner extends GitRunner {
  calls: string[] = [];
  override run(call: GitCall) {
    const args = call.args.filter((a, i) => !a.startsWith("-") && call.args[i - 1] !== "-c");
    this.calls.push(args[0] ?? "");
    return super.run(call);
  }
}
