import ArgumentParser
import Foundation
import SyncProtocol
import SyncServer

extension User {
    struct SetQuota: AsyncParsableCommand, ReadsSettings {
        static let configuration = CommandConfiguration(
            commandName: "set-quota",
            abstract: "Set a user's quotas and largest file, overriding the server defaults.",
            discussion: discussion("""
                Each limit not given returns to the server default (--quota-bytes, --quota-files and \
                --max-file-bytes of 'serve'). Over the byte or file quota, pushes are answered \
                429 quota_exceeded; a file over the size limit 413 file_too_large. Existing files are \
                never removed by a lower quota; only growth is refused.

                Example: vaultsync-server user set-quota ada@example.com --bytes 10000000000 --files 100000
                """))
        static let settings = ServerSettings.common

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
            let (values, logger) = try Self.setUp()
            let configuration = values.configuration
            let overrides = UserLimitOverrides(quotaBytes: bytes, quotaFiles: files, maxFileBytes: maxFileBytes)
            guard try await VaultSyncServer.setUserLimits(configuration: configuration, logger: logger, email: email, overrides) else {
                throw ValidationError("no user with email '\(email)'")
            }
            print("\(email): bytes \(describe(bytes)), files \(describe(files)), largest file \(describe(maxFileBytes))")
        }
    }

    struct Show: AsyncParsableCommand, ReadsSettings {
        static let settings = ServerSettings.common + ServerSettings.quotas + [ServerSettings.maxFileBytes]
        static let configuration = CommandConfiguration(
            abstract: "Show a user's usage and effective limits.", discussion: discussion("The server's defaults are read as 'serve' reads them."))

        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            let (values, logger) = try Self.setUp()
            let configuration = values.configuration
            guard let (overrides, usage) = try await VaultSyncServer.userUsage(configuration: configuration, logger: logger, email: email) else {
                throw ValidationError("no user with email '\(email)'")
            }
            print("\(email): \(usage.bytesUsed) bytes kept, \(usage.fileCount) current files")
            if let breakdown = usage.breakdown { print("kept: \(breakdown.summary)") }
            print("quota: bytes \(usage.quotaBytes.map(String.init) ?? "unlimited")\(overrides.quotaBytes == nil ? " (default)" : ""), files \(usage.quotaFiles.map(String.init) ?? "unlimited")\(overrides.quotaFiles == nil ? " (default)" : ""), largest file \(usage.maxFileBytes)\(overrides.maxFileBytes == nil ? " (default)" : "")")
        }
    }
}

private func describe(_ value: Int64?) -> String { value.map(String.init) ?? "server default" }
