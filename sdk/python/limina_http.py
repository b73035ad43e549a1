"""The Limina Python SDK's HTTP client over the standard `wasi:http` outgoing handler, for
packages whose manifest declares network grants (they build against the `skill-package-http`
world). `limina pkg build` writes it into the package's `bindings/` on every build, so a
package imports it without keeping a copy:

    import limina_http
    response = limina_http.get("https://api.example.com/v1/items", [("accept", "application/json")])

The host checks every request against the grants; a refused one raises `FetchError` with the
`wasi:http` error code (`HttpRequestDenied`, `DestinationIpProhibited`, …)."""

try:  # the host's imports exist only inside the component
    from componentize_py_types import Err
    from wit_world.imports import outgoing_handler, streams
    from wit_world.imports import wasi_http_types as http
except ImportError:  # native tests: every request fails with `NoNetwork`
    http = None


class FetchError(Exception):
    """The request failed or was refused; the message names the `wasi:http` error code."""


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def text(self):
        return self.body.decode("utf-8", errors="replace")


def _code(error):
    return type(error).__name__.replace("ErrorCode_", "")


def request(method, url, headers=(), body=None, limit=1 << 20):
    """Sends one request and reads the answer (at most `limit` bytes of body). Redirects are
    not followed: a 3xx comes back as it is."""
    if http is None:
        raise FetchError("NoNetwork")
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "https"):
        raise FetchError(f"`{url}` is not an http(s) URL")
    authority, slash, path = rest.partition("/")
    headers = list(headers)
    # A body goes with its length, so servers that read none but `content-length` get it.
    if body is not None and not any(k.lower() == "content-length" for k, _ in headers):
        headers.append(("content-length", str(len(body))))
    fields = http.Fields.from_list([(k, v.encode()) for k, v in headers])
    req = http.OutgoingRequest(fields)
    req.set_method(http.Method_Post() if method == "POST" else http.Method_Get())
    req.set_scheme(http.Scheme_Https() if scheme == "https" else http.Scheme_Http())
    req.set_authority(authority)
    req.set_path_with_query(slash + path)
    outgoing = req.body() if body is not None else None
    try:
        future = outgoing_handler.handle(req, None)
    except Err as e:
        raise FetchError(_code(e.value))
    if outgoing is not None:
        stream = outgoing.write()
        # `blocking-write-and-flush` takes at most 4096 bytes at once.
        for at in range(0, len(body), 4096):
            stream.blocking_write_and_flush(body[at : at + 4096])
        del stream
        http.OutgoingBody.finish(outgoing, None)
    while True:
        result = future.get()
        if result is not None:
            break
        future.subscribe().block()
    if isinstance(result, Err):
        raise FetchError("the response was already taken")
    answer = result.value
    if isinstance(answer, Err):
        raise FetchError(_code(answer.value))
    response = answer.value
    status = response.status()
    headers = [(k, v.decode("latin-1")) for k, v in response.headers().entries()]
    incoming = response.consume()
    stream = incoming.stream()
    chunks = []
    size = 0
    while size < limit:
        try:
            chunk = stream.blocking_read(min(65536, limit - size))
        except Err as e:
            if isinstance(e.value, streams.StreamError_Closed):
                break
            code = http.http_error_code(e.value.value)
            raise FetchError(_code(code) if code is not None else "the body could not be read")
        chunks.append(chunk)
        size += len(chunk)
    del stream
    return Response(status, headers, b"".join(chunks))


def get(url, headers=()):
    """`request("GET", url, headers)`."""
    return request("GET", url, headers)
