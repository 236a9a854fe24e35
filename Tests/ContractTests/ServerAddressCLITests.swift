import Foundation
import TestSupport
import Testing

/// A server address that cannot work is said in words, not as a library's error (issue 52).
@Suite struct ServerAddressCLITests: CLISuite {
    /// `https://` to a server that speaks plain HTTP: one line saying so, exit 1 (not "try again
    /// later"), and no folder or device left behind.
    @Test func httpsToAPlainHTTPServerSaysItDoesNotSpeakTLS() async throws {
        let folder = newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.with { server in
            let port = try #require(server.baseURL.port)
            let email = "tls-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let answer = try await vaultsync(["init", folder.path, "--server", "https://127.0.0.1:\(port)", "--email", email, "--create-account"])
            #expect(answer.exitCode == 1, "\(answer)")
            #expect(answer.stderr.contains("the server does not speak TLS at this address (if it serves plain HTTP, use http://)"), "\(answer)")
            #expect(!answer.stderr.contains("NIOSSL") && !answer.stderr.contains("BoringSSL") && !answer.stderr.contains(".swift"), "\(answer)")
            #expect(answer.stderr.split(separator: "\n").count == 1, "one line: \(answer)")
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        }
    }

    /// A server name that does not resolve (a typo): said so, exit 1 (not 3, "try again later").
    /// `.invalid` never resolves (RFC 6761), so the answer comes at once and asks nothing outside.
    @Test func aNameThatDoesNotResolveIsSaidSoNotOffline() async throws {
        let folder = newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let email = "dns-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let answer = try await vaultsync(["init", folder.path, "--server", "http://vaultsync-nowhere.invalid:8080", "--email", email, "--create-account"])
        #expect(answer.exitCode == 1, "\(answer)")
        #expect(answer.stderr.contains("its name does not resolve") && answer.stderr.contains("vaultsync-nowhere.invalid"), "\(answer)")
        #expect(!answer.stderr.contains("try again later") && answer.stderr.split(separator: "\n").count == 1, "\(answer)")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
