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
