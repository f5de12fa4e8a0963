import { render } from "ink";
import { createElement } from "react";
import type { OptionValues } from "../args.js";
import { cliRuntime } from "../cli-runtime.js";
import type { StartChat } from "../commands/chat.js";
import { EXIT_OK } from "../errors.js";
import { resolveSessionId } from "../ids.js";
import type { Io } from "../io.js";
import { terminalMcpLogin } from "../mcp/terminal-login.js";
import { ANSI, PLAIN } from "../render/style.js";
import { createFormElicitationHandler } from "../run/elicitation-form.js";
import { loadCommandConfig, type RunFlags } from "../run/flags.js";
import { mcpServerNames } from "../run/mcp-input.js";
import { createAskHandler } from "../run/permissions.js";
import { createPlanApprovalHandler } from "../run/plan-approval.js";
import { createQuestionHandler } from "../run/questions.js";
import { arborHomeOf, withStore } from "../store.js";
import { startTelemetry } from "../telemetry.js";
import { ChatApp } from "./app.js";
import { ChatController } from "./controller.js";
import { loadHistory, saveToHistory } from "./editor.js";
import { ANSI_MARKDOWN, PLAIN_MARKDOWN } from "./markdown.js";

/**
 * `arbor chat` once its flags are checked: the store and one runtime for the whole chat, the Ink
 * screen on the terminal, until the person quits. Loaded only by the chat command, so no other
 * command pays for React.
 */
export const startChat: StartChat = async (io: Io, values: OptionValues, flags: RunFlags): Promise<number> => {
  const config = loadCommandConfig(io, flags.cwd, flags);
  const telemetry = await startTelemetry(config, io.env);
  const color = !io.env.NO_COLOR;
  const columns = Math.max(40, io.stdout.columns || 100);
  const arborHome = arborHomeOf(io);
  try {
    return await withStore(io, values, async (store, resolved) => {
      const sessionId = flags.sessionId === undefined ? undefined : await resolveSessionId(store, flags.sessionId);
      const controller = new ChatController({
        io,
        store,
        storeLabel: resolved.label,
        style: color ? ANSI : PLAIN,
        markdown: color ? ANSI_MARKDOWN : PLAIN_MARKDOWN,
        columns,
        sessionId,
        model: flags.model,
        agent: flags.agent,
        thinking: flags.thinking,
        mcpServers: mcpServerNames(config),
      });
      // The run asks through `prompt`, as `arbor run` does; the chat's prompt is a question on its screen.
      const asking: Io = { ...io, prompt: controller.ask };
      // A login an MCP server wants mid-run: a line with the link, the browser back to a loopback listener.
      const login = terminalMcpLogin((line) => controller.print([controller.style.yellow(line)]), io.env);
      const runtime = cliRuntime(io, "arbor chat", {
        store,
        config,
        ...(telemetry ? { telemetry: telemetry.observer } : {}),
        cwd: flags.cwd,
        snapshots: true,
        onPermission: createAskHandler({ yes: flags.yes, io: asking, view: controller.runView, onNobody: () => {} }),
        onPlanApproval: createPlanApprovalHandler({ yes: flags.yes, io: asking, view: controller.runView, onNobody: () => {} }),
        onRetry: (notice) => controller.runView.retrying(notice),
        onQuestion: createQuestionHandler({ io: asking, view: controller.runView, onNobody: () => {} }),
        // Answered through runtime.asks like every other door, so a form the server refuses is said and asked again.
        onElicitation: createFormElicitationHandler({
          prompt: controller.ask,
          view: controller.runView,
          say: (line) => controller.print([controller.style.red(line)]),
          answer: (id, allow, content) => controller.runtime.asks.answer(id, allow, content === undefined ? {} : { content }),
        }),
        mcpLoginRedirect: login.redirect,
        onMcpLogin: login.handler,
      });
      login.bind(runtime);
      controller.attach(runtime);
      // SIGTERM or a closed terminal end the chat as /quit does; a second one ends the process.
      const release = io.onInterrupt?.(() => controller.quit());
      try {
        await controller.greet();
        const app = render(
          createElement(ChatApp, {
            controller,
            history: loadHistory(arborHome),
            onSent: (prompt: string) => saveToHistory(arborHome, prompt),
            cwd: flags.cwd,
            markdown: color ? ANSI_MARKDOWN : PLAIN_MARKDOWN,
            columns,
          }),
          { exitOnCtrlC: false, patchConsole: false },
        );
        await app.waitUntilExit();
      } finally {
        release?.();
        await runtime.close();
      }
      return EXIT_OK;
    });
  } finally {
    await telemetry?.shutdown();
  }
};
