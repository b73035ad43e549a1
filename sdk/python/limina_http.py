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


_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH")


def _method(name):
    if name.upper() in _METHODS:
        return getattr(http, "Method_" + name.capitalize())()
    return http.Method_Other(name)


def request(method, url, headers=(), body=None, limit=1 << 20):
    """Sends one request and reads the answer (at most `limit` bytes of body). Redirects are
    not followed: a 3xx comes back as it is.

    Every `wasi:http` resource is dropped explicitly, children before their parents (a
    stream before its body, a body or headers before their response): left to Python's
    garbage collector, a parent could go first, which traps the component."""
    if http is None:
        raise FetchError("NoNetwork")
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "https"):
        raise FetchError(f"`{url}` is not an http(s) URL")
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, path = rest[:cut], rest[cut:]
    if not authority:
        raise FetchError(f"`{url}` is not an http(s) URL")
    headers = list(headers)
    # A body goes with its length, so servers that read none but `content-length` get it.
    if body is not None and not any(k.lower() == "content-length" for k, _ in headers):
        headers.append(("content-length", str(len(body))))
    fields = http.Fields.from_list([(k, v.encode()) for k, v in headers])
    req = http.OutgoingRequest(fields)
    req.set_method(_method(method))
    req.set_scheme(http.Scheme_Https() if scheme == "https" else http.Scheme_Http())
    req.set_authority(authority)
    req.set_path_with_query(path or "/")
    outgoing = req.body() if body is not None else None
    try:
        future = outgoing_handler.handle(req, None)
    except Err as e:
        if outgoing is not None:
            outgoing.__exit__(None, None, None)
        raise FetchError(_code(e.value))
    with future:
        if outgoing is not None:
            with outgoing.write() as stream:
                # `blocking-write-and-flush` takes at most 4096 bytes at once.
                for at in range(0, len(body), 4096):
                    stream.blocking_write_and_flush(body[at : at + 4096])
            http.OutgoingBody.finish(outgoing, None)
        while True:
            result = future.get()
            if result is not None:
                break
            with future.subscribe() as ready:
                ready.block()
    if isinstance(result, Err):
        raise FetchError("the response was already taken")
    answer = result.value
    if isinstance(answer, Err):
        raise FetchError(_code(answer.value))
    with answer.value as response:
        status = response.status()
        with response.headers() as fields:
            headers = [(k, v.decode("latin-1")) for k, v in fields.entries()]
        with response.consume() as incoming:
            with incoming.stream() as stream:
                chunks = []
                size = 0
                while size < limit:
                    try:
                        chunk = stream.blocking_read(min(65536, limit - size))
                    except Err as e:
                        if isinstance(e.value, streams.StreamError_Closed):
                            break
                        code = http.http_error_code(e.value.value)
                        raise FetchError(
                            _code(code) if code is not None else "the body could not be read"
                        )
                    chunks.append(chunk)
                    size += len(chunk)
    return Response(status, headers, b"".join(chunks))


def get(url, headers=()):
    """`request("GET", url, headers)`."""
    return request("GET", url, headers)
