import Foundation
import SyncServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `vaultsync sync` when the server fails as a whole: cut off mid-answer by a crash, or up but
/// without its database. Either way exit 3 with one line, changes pending, nothing parked, and
/// the next sync that gets through sends them.
@Suite struct CLIFaultTests: CLISuite {

    /// Signs up and links `vault` to `server`, then writes a note there that no sync has sent yet.
    func linkWithPendingNote(_ vault: URL, _ server: TestServer) async throws {
        let email = "fault-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let url = server.baseURL.absoluteString
        #expect(try await vaultsync(["signup", "--server", url, "--email", email]).exitCode == 0)
        let linked = try await vaultsync(["init", vault.path, "--server", url, "--email", email])
        #expect(linked.exitCode == 0, "\(linked)")
        try Data("# written offline\n".utf8).write(to: vault.appendingPathComponent("pending.md"))
    }

    /// Checks a sync that met a server-wide failure: exit 3, one line saying so (no error dump),
    /// OFFLINE, and no failing or parked file.
    func expectUnreachable(_ result: CLIResult, saying phrase: String, _ vault: URL) async throws {
        #expect(result.exitCode == 3, "\(result)")
        let said = (result.stdout + result.stderr).split(separator: "\n").filter { $0.contains(phrase) }
        #expect(said.count == 1 && said[0].hasSuffix("local changes stay pending"), "\(result)")
        for dump in ["Error Domain", "NSURLErrorDomain", "SyncAPIError", "error 1."] { #expect(!result.description.contains(dump), "\(result)") }
        let status = try await vaultsync(["status", vault.path, "--json"]).json()
        #expect(status["status"] as? String == "OFFLINE")
        #expect((status["failing"] as? [Any])?.isEmpty == true, "nothing counts towards parking: \(status)")
    }

    /// A stand-in for a broken server on `port`: it reads each request and then closes the
    /// connection without a word (`silent`), after half an answer (`truncated`), or answers 503
    /// after 4 seconds (`slow`).
    /// Port 0 picks a free one; the port is returned with the process.
    func crashingServer(port: Int, mode: String) async throws -> (process: Process, port: Int) {
        let script = """
            import socket, sys, time
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", \(port))); s.listen(16); print("ready", s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept(); c.recv(65536)
                if sys.argv[1] == "slow":
                    time.sleep(4)
                    c.sendall(b'HTTP/1.1 503 Service Unavailable\\r\\nContent-Length: 2\\r\\n\\r\\n{}')
                if sys.argv[1] == "truncated":
                    c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: 5000\\r\\n\\r\\n{"files": [')
                c.close()
            """
        let ready = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: ready.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: ready) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, mode]
        process.standardOutput = try FileHandle(forWritingTo: ready)
        process.standardError = FileHandle.nullDevice
        try process.run()
        ExitWatchdog.run("kill -KILL \(process.processIdentifier) 2>/dev/null", alsoEndsWith: process.processIdentifier)
        for _ in 0..<100 {
            if let line = try? String(contentsOf: ready, encoding: .utf8), line.hasPrefix("ready "),
                let bound = Int(line.dropFirst(6).trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return (process, bound)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(process.processIdentifier, SIGKILL)
        throw CLIProcessError.helperFailed("the python3 stand-in server did not start")
    }

    @Test func aServerCutOffMidAnswerIsUnreachableNotACrash() async throws {
        let database = try await TestCluster.newDatabase()
        let data = newFolder(), vault = newFolder()
        defer { for folder in [data, vault] { try? FileManager.default.removeItem(at: folder) } }
        let configure: @Sendable (inout ServerConfiguration) -> Void = {
            $0.databaseURL = database
            $0.dataDirectory = data
            $0.jwtSecret = "cli-fault-secret-0123456789-0123456789"
        }
        let port = try await TestServer.with(configure: configure) { server in
            try await linkWithPendingNote(vault, server)
            return try #require(server.baseURL.port)
        }
        for mode in ["silent", "truncated"] {
            let stand_in = try await crashingServer(port: port, mode: mode).process
            defer {
                kill(stand_in.processIdentifier, SIGKILL)
                stand_in.waitUntilExit()
            }
            try await expectUnreachable(try await vaultsync(["sync", vault.path]), saying: "cannot reach the server: the connection", vault)
        }
        try await TestServer.with(configure: { configure(&$0); $0.port = port }) { _ in
            let synced = try await vaultsync(["sync", vault.path, "--json"])
            #expect(synced.exitCode == 0, "\(synced)")
            #expect(try synced.json()["pushed"] as? [String] == ["pending.md"])
        }
    }

    /// A client waiting for an answer sleeps: it spends next to no CPU while a server takes 4 s.
    /// (URLSession on Linux spun: about 0.9 CPU-seconds per second waited.)
    @Test func aClientWaitingOnASlowServerUsesNoCPU() async throws {
        let (stand_in, port) = try await crashingServer(port: 0, mode: "slow")
        defer {
            kill(stand_in.processIdentifier, SIGKILL)
            stand_in.waitUntilExit()
        }
        let client = try CLIProcess.executable("vaultsync").path
        let timed = try await CLIProcess.run(
            "/bin/bash", ["-c", #"TIMEFORMAT="cpu %U %S"; time "$0" signup --server "$1" --email slow@example.com"#, client, "http://127.0.0.1:\(port)"],
            environment: environment)
        let output = timed.stderr
        #expect(timed.exitCode == 3, "\(timed)")
        let line = try #require(output.split(separator: "\n").last(where: { $0.hasPrefix("cpu ") }), "\(output)")
        let cpu = line.split(separator: " ").dropFirst().compactMap { Double($0) }.reduce(0, +)
        #expect(cpu < 1.0, "\(cpu) CPU-seconds spent waiting 4 s for an answer")
    }

    @Test func aDatabaseOutageLeavesChangesPendingAndParksNothing() async throws {
        let vault = newFolder()
        defer { try? FileManager.default.removeItem(at: vault) }
        try await PrivateCluster.with { cluster in
            try await TestServer.with(configure: { $0.databaseURL = cluster.connectionString(database: "outage") }) { server in
                try await linkWithPendingNote(vault, server)
                try await cluster.stop()
                for _ in 0..<4 {  // more syncs than it takes to park a file
                    try await expectUnreachable(try await vaultsync(["sync", vault.path]), saying: "the server cannot serve now (the database is unavailable", vault)
                }
                try await cluster.start()
                let synced = try await vaultsync(["sync", vault.path, "--json"])
                #expect(synced.exitCode == 0, "\(synced)")
                #expect(try synced.json()["pushed"] as? [String] == ["pending.md"])
            }
        }
    }
}
