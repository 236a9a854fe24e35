import Foundation
import SyncProtocol
import SyncServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The embedded default as an operator runs it: `vaultsync-server serve` and its admin commands
/// as child processes sharing one data folder, and the cluster's postmaster killed underneath.
@Suite(.serialized) struct EmbeddedClusterTests {
    static let password = "correct horse battery"

    func credentials(_ email: String) -> Data {
        Data(#"{"email":"\#(email)","password":"\#(Self.password)"}"#.utf8)
    }

    func signUp(_ server: ServerProcess) async throws -> String {
        let email = "op-\(UUID().uuidString.prefix(6))@example.com"
        let answer = try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/signup"), body: credentials(email))
        #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
        return email
    }

    func logIn(_ server: ServerProcess, _ email: String) async throws -> RawHTTP.Answer {
        try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: credentials(email))
    }

    /// Logs in until it works (at most `within`); every answer on the way must be a 503, never a 500.
    func logInOnceBack(_ server: ServerProcess, _ email: String, within: Duration = .seconds(60)) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + within
        while clock.now < deadline {
            let answer = try await logIn(server, email)
            if answer.status == 200 { return true }
            #expect(answer.status == 503 && answer.code == .unavailable, "while postgres restarts: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// Runs `arguments` as the unprivileged local account `nobody`.
    func asNobody(_ arguments: [String]) async throws -> CLIResult {
        try await CLIProcess.run("/usr/sbin/runuser", ["-u", "nobody", "--"] + arguments)
    }

    /// Another local account reaches neither the embedded cluster nor the data folder, for a short
    /// data path (the socket in the cluster folder) and a long one (the socket in a folder of its
    /// own under /tmp): as `nobody`, psql is refused on the live socket, which the server's own
    /// account can use, and is refused by peer authentication even once the socket is made
    /// reachable; the folder cannot be listed nor the signing secret read.
    @Test(.enabled(if: geteuid() == 0, "runs commands as nobody, which takes root"), arguments: [false, true])
    func anotherLocalAccountReachesNeitherTheClusterNorTheDataFolder(longPath: Bool) async throws {
        var data = try ServerProcess.newDataDirectory()
        if longPath {
            data = data.appendingPathComponent(String(repeating: "a-long-folder-name-", count: 5))
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        let (socket, _) = try await ServerProcess.serving(dataDirectory: data) { server in
            _ = try await signUp(server)
            let socket = try server.cluster.socketDirectory.path
            #expect(socket.hasPrefix("/tmp/vaultsync-pg-") == longPath, "\(socket)")
            let query = ["psql", "-h", socket, "-U", "postgres", "-d", "vaultsync", "-tAc", "SELECT 1"]
            let own = try await CLIProcess.run("/usr/bin/psql", Array(query.dropFirst()))
            #expect(own.exitCode == 0 && own.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "the server's account gets in: \(own)")

            let refused = try await asNobody(query)
            #expect(refused.exitCode != 0 && refused.stderr.contains("Permission denied"), "\(refused)")
            for (path, mode) in [(socket, 0o700), (data.path, 0o710), (data.path + "/server-secret", 0o600)] {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect(attributes[.posixPermissions] as? Int == mode, "\(path): \(String((attributes[.posixPermissions] as? Int) ?? 0, radix: 8))")
            }
            #expect(try await asNobody(["ls", data.path]).exitCode != 0)
            #expect(try await asNobody(["cat", data.path + "/server-secret"]).exitCode != 0)

            // With the socket made reachable by hand, the sign-in itself refuses another account.
            for (path, mode) in [(data.path, 0o711), (socket, 0o711), (socket + "/.s.PGSQL.5432", 0o777)] { #expect(chmod(path, mode_t(mode)) == 0) }
            let unauthenticated = try await asNobody(query)
            #expect(unauthenticated.exitCode != 0 && unauthenticated.stderr.contains("Peer authentication failed"), "\(unauthenticated)")
            for (path, mode) in [(data.path, 0o710), (socket, 0o700), (socket + "/.s.PGSQL.5432", 0o700)] { #expect(chmod(path, mode_t(mode)) == 0) }
            return socket
        }
        // A socket folder of its own goes with the cluster it served.
        #expect(FileManager.default.fileExists(atPath: socket) == !longPath)
    }

    /// Admin commands run against the data folder of a running server use its cluster and leave
    /// it running: the server goes on serving without a pause.
    @Test func adminCommandsLeaveTheRunningServersClusterAlone() async throws {
        let data = try ServerProcess.newDataDirectory()
        try await ServerProcess.serving(dataDirectory: data) { server in
            let email = try await signUp(server)
            let postmaster = try server.cluster.postmasterPID
            for command in [["user", "show", email], ["user", "set-quota", email, "--bytes", "1000000"], ["purge"], ["migrate"]] {
                let result = try await CLIProcess.run("vaultsync-server", command + ["--data-dir", data.path])
                #expect(result.exitCode == 0, "\(command): \(result)")
                if command.starts(with: ["user", "show"]) { #expect(result.stdout.contains("0 bytes kept, 0 current files\nkept: current files 0, conflicts 0, history 0"), "\(result)") }
                let login = try await logIn(server, email)
                #expect(login.status == 200, "after '\(command.joined(separator: " "))' the server answered \(login.status)")
            }
            #expect(try server.cluster.postmasterPID == postmaster, "the same postmaster serves throughout")
        }
    }

    /// A postmaster killed under a running server is noticed and the cluster started again;
    /// meanwhile requests answer 503, and afterwards they succeed with everything still there.
    @Test func theServerStartsItsClusterAgainWhenPostgresDies() async throws {
        let data = try ServerProcess.newDataDirectory()
        let (_, ended) = try await ServerProcess.serving(dataDirectory: data) { server in
            let email = try await signUp(server)
            let postmaster = try #require(try server.cluster.postmasterPID)
            kill(postmaster, SIGKILL)
            #expect(try await logInOnceBack(server, email), "the server came back to serving")
            #expect(try server.cluster.postmasterPID != postmaster)
            #expect(server.process.stderrSoFar.contains("the embedded postgres cluster stopped; starting it again"))
        }
        #expect(ended.exitCode == 0, "\(ended)")
    }

    /// A server out of file descriptors (connections from many addresses, each under its bound,
    /// past a lowered limit) cannot read `postmaster.pid`: it says so and does not take Postgres
    /// for dead (it used to start it again in a loop); once the connections time out it serves as
    /// before, on the same postmaster.
    @Test func runningOutOfFileDescriptorsIsNotTakenForADeadPostgres() async throws {
        let data = try ServerProcess.newDataDirectory()
        let server = try await ServerProcess.start(dataDirectory: data, arguments: ["--idle-timeout-seconds", "3"])
        do {
            let email = try await signUp(server)
            let postmaster = try #require(try server.cluster.postmasterPID)
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.pid)/fd").count
            let limit = try await CLIProcess.run("/usr/bin/prlimit", ["--pid", String(server.process.pid), "--nofile=\(open + 30)"])
            #expect(limit.exitCode == 0, "\(limit)")
            let port = try #require(server.baseURL.port)
            var floods: [SlowClients] = []
            for source in 2...5 { floods.append(try await SlowClients.start(port: port, source: "127.0.0.\(source)", kinds: ["idle": 20], seconds: 15)) }
            for flood in floods { _ = try await flood.outcomes() }  // every connection timed out and was closed
            #expect(server.process.stderrSoFar.contains("cannot tell whether the embedded postgres cluster runs"), "the monitor met the limit")
            #expect(!server.process.stderrSoFar.contains("starting it again"), "\(server.process.stderrSoFar.suffix(2000))")
            #expect(try await logInOnceBack(server, email))
            #expect(try server.cluster.postmasterPID == postmaster, "the same postmaster serves throughout")
        } catch {
            _ = try? await server.stop()
            throw error
        }
        #expect(try await server.stop().exitCode == 0)
    }

    /// After a crash of both the server and its postmaster, the next `serve` does not adopt the
    /// dead postmaster: it starts the cluster (Postgres recovers) and serves what was there.
    @Test func serveRecoversAfterItsPostmasterWasKilled() async throws {
        let data = try ServerProcess.newDataDirectory()
        let first = try await ServerProcess.start(dataDirectory: data)
        let email: String
        do {
            email = try await signUp(first)
            try await first.kill()
            kill(try #require(try first.cluster.postmasterPID), SIGKILL)
        } catch {
            _ = try? await first.stop()
            throw error
        }
        try await ServerProcess.serving(dataDirectory: data) { second async throws in
            #expect(try await logIn(second, email).status == 200)
        }
    }
}
