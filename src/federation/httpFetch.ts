/**
 * `fetch` for a long-lived MCP client transport. The SDK passes one signal for the transport's
 * whole life to every request, and Node's fetch adds an abort listener to it per request that
 * only garbage collection removes: thousands of calls pile thousands of listeners on one signal
 * (MaxListenersExceededWarning). Here each request gets a signal of its own, tied to the
 * transport's by a listener that goes as soon as the reply has been read.
 */
export function fetchPerRequestSignal(): typeof fetch {
  return async (input, init) => {
    const outer = init?.signal;
    if (!outer) return fetch(input, init);
    const inner = new AbortController();
    const forward = () => inner.abort(outer.reason);
    const release = () => outer.removeEventListener('abort', forward);
    if (outer.aborted) forward();
    else outer.addEventListener('abort', forward, { once: true });
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: inner.signal });
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    // A stream (SSE) stays cancellable by the transport until it ends.
    const body = response.body.pipeThrough(new TransformStream({ flush: release }));
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
