/** The path of `arbor serve`'s route that finishes MCP logins asked for during runs. */
export const MCP_CALLBACK_PATH = "/api/mcp/oauth/callback";

/**
 * Where a login a run asks for sends the browser back to under `arbor serve`: its own callback
 * route, known once the server listens (until then no login can be asked, and a server that wants
 * one fails its call with `mcp_login_required` as before).
 */
export function serveLoginRedirect(): { redirect: () => string | undefined; listening: (url: string) => void } {
  const at: { url?: string } = {};
  return {
    redirect: () => (at.url === undefined ? undefined : `${at.url}${MCP_CALLBACK_PATH}`),
    listening: (url) => {
      at.url = url;
    },
  };
}
