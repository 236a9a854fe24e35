import Foundation
import TestSupport

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

    /// A new folder path under /tmp (not created).
    func newFolder() -> URL {
        URL(fileURLWithPath: "/tmp/vaultsync-cli-\(UUID().uuidString.prefix(8))")
    }
}
