public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP proxy on loopback in front of a real server that fails one request: the first whose
/// method and path match answers `500 internal_error` (the server never sees it); every other
/// request, before and after, is passed through. It speaks plain HTTP/1.1 requests only (no
/// WebSocket upgrades: a client behind it follows the change feed by long polls). A child process
/// (Python's standard library), ended by ``stop()`` or, should the test process die, by a watchdog.
public struct FailingProxy: Sendable {
    /// Where clients connect.
    public let url: URL
    private let process: CLIProcess

    private static let script = """
        import http.client, http.server, sys, threading
        host, port, method, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
        state = {"failed": False}
        lock = threading.Lock()
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def relay(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                with lock:
                    fail = not state["failed"] and self.command == method and self.path.split("?")[0] == path
                    state["failed"] = state["failed"] or fail
                if fail:
                    answer = b'{"error": {"code": "internal_error", "message": "a failure injected by the test proxy"}}'
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                    print("failed", self.command, self.path, flush=True)
                    return
                upstream = http.client.HTTPConnection(host, port, timeout=120)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive", "host")}
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                data = response.read()
                upstream.close()
                self.send_response(response.status)
                for k, v in response.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length", "keep-alive"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = relay
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print("ready", server.server_address[1], flush=True)
        server.serve_forever()
        """

    /// Starts the proxy in front of `target`, failing the first `method` request to `path`.
    public static func start(to target: URL, failing method: String, _ path: String) async throws -> FailingProxy {
        let process = try CLIProcess.start("/usr/bin/env", ["python3", "-c", script, target.host ?? "127.0.0.1", String(target.port ?? 80), method, path])
        ExitWatchdog.run("kill -KILL \(process.pid) 2>/dev/null", alsoEndsWith: process.pid)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let line = process.stdoutSoFar.split(separator: "\n").first, line.hasPrefix("ready "), let port = Int(line.dropFirst(6)) {
                return FailingProxy(url: URL(string: "http://127.0.0.1:\(port)")!, process: process)
            }
            guard process.isRunning else { throw CLIProcessError.helperFailed("the failing proxy did not start: \(try await process.finish())") }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.send(SIGKILL)
        throw CLIProcessError.helperFailed("the failing proxy did not start within 30 s")
    }

    /// The requests it failed so far ("POST /vault/push").
    public var failed: [String] {
        process.stdoutSoFar.split(separator: "\n").filter { $0.hasPrefix("failed ") }.map { String($0.dropFirst(7)) }
    }

    /// Ends the proxy.
    public func stop() async {
        process.send(SIGKILL)
        _ = try? await process.finish(timeout: .seconds(10))
    }
}
