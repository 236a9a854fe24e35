import ArgumentParser
import Foundation
import SyncProtocol
import SyncServer

/// `vaultsync-server user …`: per-user administration.
struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Per-user administration: quotas and limits.",
        subcommands: [SetQuota.self, Show.self])

    struct SetQuota: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-quota",
            abstract: "Set a user's quotas and largest file, overriding the server defaults.",
            discussion: """
                Each limit not given returns to the server default (--quota-bytes, --quota-files and \
                --max-file-bytes of 'serve'). Over the byte or file quota, pushes are answered \
                429 quota_exceeded; a file over the size limit 413 file_too_large. Existing files are \
                never removed by a lower quota; only growth is refused.

                Example: vaultsync-server user set-quota ada@example.com --bytes 10000000000 --files 100000
                """)

        @OptionGroup var common: CommonOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: ArgumentHelp("Bytes of current files the user may hold (all vaults).", valueName: "bytes")) var bytes: Int64?
        @Option(help: ArgumentHelp("Number of current files the user may hold.", valueName: "n")) var files: Int64?
        @Option(help: ArgumentHelp("Largest single file in bytes.", valueName: "bytes")) var maxFileBytes: Int64?

        func validate() throws {
            for (name, value) in [("--bytes", bytes), ("--files", files), ("--max-file-bytes", maxFileBytes)] {
                if let value, value < 0 { throw ValidationError("\(name) must not be negative") }
            }
        }

        func run() async throws {
            let env = ProcessInfo.processInfo.environment
            var configuration = ServerConfiguration()
            try common.apply(to: &configuration, environment: env)
            let overrides = UserLimitOverrides(quotaBytes: bytes, quotaFiles: files, maxFileBytes: maxFileBytes)
            guard try await VaultSyncServer.setUserLimits(configuration: configuration, logger: try common.makeLogger(environment: env), email: email, overrides) else {
                throw ValidationError("no user with email '\(email)'")
            }
            print("\(email): bytes \(describe(bytes)), files \(describe(files)), largest file \(describe(maxFileBytes))")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user's usage and effective limits.")

        @OptionGroup var common: CommonOptions
        @OptionGroup var defaults: QuotaDefaults
        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            let env = ProcessInfo.processInfo.environment
            var configuration = ServerConfiguration()
            try common.apply(to: &configuration, environment: env)
            try defaults.apply(to: &configuration, environment: env)
            guard let (overrides, usage) = try await VaultSyncServer.userUsage(configuration: configuration, logger: try common.makeLogger(environment: env), email: email) else {
                throw ValidationError("no user with email '\(email)'")
            }
            print("\(email): \(usage.bytesUsed) bytes in \(usage.fileCount) files")
            print("quota: bytes \(usage.quotaBytes.map(String.init) ?? "unlimited")\(overrides.quotaBytes == nil ? " (default)" : ""), files \(usage.quotaFiles.map(String.init) ?? "unlimited")\(overrides.quotaFiles == nil ? " (default)" : ""), largest file \(usage.maxFileBytes)\(overrides.maxFileBytes == nil ? " (default)" : "")")
        }
    }
}

private func describe(_ value: Int64?) -> String { value.map(String.init) ?? "server default" }

/// The server-wide default quotas (shared by `serve` and `user show`).
struct QuotaDefaults: ParsableArguments {
    @Option(help: ArgumentHelp("Default quota of bytes in current files per user; unlimited when unset. Env: VAULTSYNC_QUOTA_BYTES.", valueName: "bytes"))
    var quotaBytes: Int64?

    @Option(help: ArgumentHelp("Default quota of current files per user; unlimited when unset. Env: VAULTSYNC_QUOTA_FILES.", valueName: "n"))
    var quotaFiles: Int64?

    func apply(to configuration: inout ServerConfiguration, environment env: [String: String]) throws {
        if let value = try quotaBytes ?? envInt(env, "VAULTSYNC_QUOTA_BYTES").map(Int64.init) {
            guard value >= 0 else { throw ValidationError("--quota-bytes must not be negative") }
            configuration.quotaBytes = value
        }
        if let value = try quotaFiles ?? envInt(env, "VAULTSYNC_QUOTA_FILES").map(Int64.init) {
            guard value >= 0 else { throw ValidationError("--quota-files must not be negative") }
            configuration.quotaFiles = value
        }
    }
}
