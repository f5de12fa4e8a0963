import { toolCall } from "@arbor/testkit";

/**
 * Three model steps that need one Python session across calls: a variable, a function, then both
 * (`double(x)` prints 42, the result of the call `py3`). The runtime's and the CLI's assistant-layer
 * tests script them alike.
 */
export function pythonAcrossCalls() {
  return [
    [toolCall("python_repl", { code: "x = 21" }, { id: "py1" })],
    [toolCall("python_repl", { code: "def double(n):\n    return n * 2" }, { id: "py2" })],
    [toolCall("python_repl", { code: "double(x)" }, { id: "py3" })],
  ];
}
