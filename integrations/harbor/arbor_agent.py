"""Arbor as a Harbor installed agent (for Terminal-Bench 2 and other Harbor datasets).

Harbor starts the task's container, runs the install script once, then the commands below; the
agent's logs folder is /logs/agent inside the container and `self.logs_dir` on the host. Arbor runs
headless (`arbor run --json --yes`), and its session is exported as an ATIF v1.7 trajectory
(sub-agents embedded) that Harbor reads, with the token and cost totals copied into the context.

    harbor run -d terminal-bench@2.0 --agent-import-path arbor_agent:ArborAgent \
        -m anthropic/claude-sonnet-4-5
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from harbor.agents.installed.base import BaseInstalledAgent, ExecInput
from harbor.models.agent.context import AgentContext

# Provider keys passed from the host into the container when set (Arbor reads the usual names).
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "OPENROUTER_API_KEY",
        "MISTRAL_API_KEY", "GROQ_API_KEY", "XAI_API_KEY", "DEEPSEEK_API_KEY", "ARBOR_BASE_URL")

# The session id of the run: every --json line carries it; the last one that does is the run's.
SESSION_OF_LOG = (
    "node -e 'const lines = require(\"fs\").readFileSync(\"/logs/agent/arbor.jsonl\", \"utf8\").trim().split(\"\\n\");"
    " for (const line of lines.reverse()) { try { const e = JSON.parse(line);"
    " if (e.session_id) { console.log(e.session_id); break; } } catch {} }'"
)


class ArborAgent(BaseInstalledAgent):
    SUPPORTS_ATIF: bool = True

    @staticmethod
    def name() -> str:
        return "arbor"

    @property
    def _install_agent_template_path(self) -> Path:
        return Path(__file__).parent / "install-arbor.sh.j2"

    def create_run_agent_commands(self, instruction: str) -> list[ExecInput]:
        env = {key: os.environ[key] for key in KEYS if os.environ.get(key)}
        model = f"--model {shlex.quote(self.model_name)} " if self.model_name else ""
        run = (
            f"arbor run --json --yes {model}{shlex.quote(instruction)} > /logs/agent/arbor.jsonl "
            "2> /logs/agent/arbor.stderr.log; status=$?; "
            f'session=$({SESSION_OF_LOG}); '
            '[ -n "$session" ] && arbor sessions export "$session" --format atif --out /logs/agent/trajectory.json; '
            "exit $status"
        )
        return [ExecInput(command=f"bash -lc {shlex.quote(run)}", env=env)]

    def populate_context_post_run(self, context: AgentContext) -> None:
        path = self.logs_dir / "trajectory.json"
        if not path.exists():
            return
        totals = json.loads(path.read_text()).get("final_metrics") or {}
        context.n_input_tokens = totals.get("total_prompt_tokens")
        context.n_cache_tokens = totals.get("total_cached_tokens")
        context.n_output_tokens = totals.get("total_completion_tokens")
        context.cost_usd = totals.get("total_cost_usd")
