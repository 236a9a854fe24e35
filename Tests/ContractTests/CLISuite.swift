import Foundation
import TestSupport
import Testing

/// What the suites that drive the `vaultsync` executable share: the password of their test
/// accounts (given as `VAULTSYNC_PASSWORD`), running the CLI with it, and scratch folders.
protocol CLISuite {}

extension CLISuite {
    static var password: String { "correct horse battery" }

    var environment: [String: String] { ["VAULTSYNC_PASSWORD": Self.password] }

    /// Runs `vaultsync` to the end.
    func vaultsync(_ arguments: [String]) async throws -> CLIResult {
        try await CLIProcess.run("vaultsync", arguments, environment: environment)
    }

    /// Waits until `condition` holds, polling; records an issue and stops the test after `limit`.
    /// `explaining` adds what was seen (a process's output) to the issue.
    func eventually(
        _ what: String, within limit: Duration = .seconds(60), explaining: () -> String = { "" }, _ condition: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting: \(what)\n\(explaining())")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A new folder path under /tmp (not created).
    func newFolder() -> URL {
        URL(fileURLWithPath: "/tmp/vaultsync-cli-\(UUID().uuidString.prefix(8))")
    }
}
