public import Foundation

/// Misbehaving HTTP clients, as an attacker runs them: a child process (Python's standard
/// library) opens connections from one local source address and holds them, each of a kind (idle;
/// half a header; a header trickled a byte a second; a body that never comes, or one trickled a
/// byte a second (read, or refused before it is read); TLS, an unknown
/// method or a 100 KiB header on the plain port), and reports for each kind how many the server
/// answered what and closed when.
public struct SlowClients: Sendable {
    /// What happened to the connections of one kind.
    public struct Outcome: Sendable, Decodable {
        /// Connections made.
        public let opened: Int
        /// Connections the server closed, and the latest of their closing times (seconds after
        /// the connection was made).
        public let closed: Int
        public let latestClose: Double?
        /// The first line of each answer the server gave, and how often.
        public let answers: [String: Int]

        enum CodingKeys: String, CodingKey {
            case opened, closed, answers
            case latestClose = "latest_close"
        }
    }

    private let process: CLIProcess

    private static let script = #"""
        import json, select, socket, sys, time
        host, port, source, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
        kinds = json.loads(sys.argv[5])
        openers = {
            "idle": b"",
            "half": b"GET /health HTTP/1.1\r\nHost: x\r\n",
            "trickle": b"GET /health HTTP/1.1\r\n",
            "body": b"POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":",
            "bodytrickle": b"POST /auth/login HTTP/1.1\r\nHost: x\r\nX-VaultSync-Protocol: 1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
            "refusedtrickle": b"POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
            "tls": bytes.fromhex("160301020001000200030300") + b"\x00" * 200,
            "method": b"BREW /health HTTP/1.1\r\nHost: x\r\n\r\n",
            "huge": b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n",
        }
        conns = []
        for kind, count in kinds.items():
            for _ in range(count):
                # A server at its descriptor limit may refuse a connection for a moment (what it
                # must not do is stop serving; the tests check that afterwards): try again briefly.
                for attempt in range(40):
                    s = socket.socket()
                    s.bind((source, 0))
                    s.settimeout(5)
                    try:
                        s.connect((host, port))
                        break
                    except ConnectionRefusedError:
                        s.close()
                        if attempt == 39: raise
                        time.sleep(0.05)
                s.setblocking(False)
                c = {"kind": kind, "sock": s, "start": time.time(), "closed": None, "data": b""}
                try:
                    if openers[kind]: s.sendall(openers[kind])
                except OSError:
                    pass
                conns.append(c)
        print("ready", flush=True)
        end = time.time() + seconds
        last_trickle = time.time()
        while time.time() < end and any(c["closed"] is None for c in conns):
            live = [c for c in conns if c["closed"] is None]
            readable, _, _ = select.select([c["sock"] for c in live], [], [], 0.1)
            for c in live:
                if c["sock"] not in readable: continue
                try:
                    chunk = c["sock"].recv(65536)
                except (ConnectionResetError, OSError):
                    chunk = b""
                if chunk:
                    c["data"] += chunk
                else:
                    c["closed"] = time.time() - c["start"]
            if time.time() - last_trickle >= 1:
                last_trickle = time.time()
                for c in live:
                    if c["kind"] in ("trickle", "bodytrickle", "refusedtrickle") and c["closed"] is None:
                        try: c["sock"].send(b"X")
                        except OSError: pass
        result = {}
        for kind in kinds:
            mine = [c for c in conns if c["kind"] == kind]
            closes = [c["closed"] for c in mine if c["closed"] is not None]
            answers = {}
            for c in mine:
                if c["data"]:
                    line = c["data"].split(b"\r\n")[0].decode("latin-1")
                    answers[line] = answers.get(line, 0) + 1
            result[kind] = {"opened": len(mine), "closed": len(closes), "latest_close": max(closes) if closes else None, "answers": answers}
        print(json.dumps(result), flush=True)
        """#

    /// Opens `kinds` (kind → how many) from `source` to the server on `port`, and returns once
    /// every connection is made; they are held for `seconds` or until the server closed them all.
    public static func start(port: Int, source: String, kinds: [String: Int], seconds: Double) async throws -> SlowClients {
        let spec = String(decoding: try JSONEncoder().encode(kinds), as: UTF8.self)
        let process = try CLIProcess.start("/usr/bin/env", ["python3", "-c", script, "127.0.0.1", String(port), source, String(seconds), spec])
        ExitWatchdog.run("kill -KILL \(process.pid) 2>/dev/null", alsoEndsWith: process.pid)
        let deadline = ContinuousClock.now + .seconds(30)
        while !process.stdoutSoFar.hasPrefix("ready") {
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.send(SIGKILL)
                throw CLIProcessError.helperFailed("the slow clients did not connect: \(try await process.finish())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return SlowClients(process: process)
    }

    /// Waits for the report: what happened to each kind.
    public func outcomes() async throws -> [String: Outcome] {
        let result = try await process.finish(timeout: .seconds(120))
        guard let line = result.stdout.split(separator: "\n").last, line.hasPrefix("{") else { throw CLIProcessError.notJSON(result.description) }
        return try JSONDecoder().decode([String: Outcome].self, from: Data(line.utf8))
    }
}
