/** A response's JSON body, failing with the body's text when the status is not the one expected. */
export async function json<T>(res: Promise<Response> | Response, status = 200): Promise<T> {
  const r = await res;
  if (r.status !== status) throw new Error(`Expected ${status}, got ${r.status}: ${await r.text()}`);
  return (await r.json()) as T;
}
