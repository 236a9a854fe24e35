import ArgumentParser
import Foundation
import SyncServer

/// How long deleted and old data is kept (shared by `serve` and `purge`).
struct RetentionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Days tombstones (and the history of deleted files) are kept; devices offline for longer reconcile from the full state. Default 90. Env: VAULTSYNC_TOMBSTONE_RETENTION_DAYS.", valueName: "days"))
    var tombstoneRetentionDays: Int?

    @Option(help: ArgumentHelp("Days old versions of existing files are kept. Default: as long as the file exists. Env: VAULTSYNC_VERSION_RETENTION_DAYS.", valueName: "days"))
    var versionRetentionDays: Int?

    @Option(help: ArgumentHelp("Hours the bytes of a push that was never confirmed are kept after its reservation expired. Default 24. Env: VAULTSYNC_UPLOAD_GRACE_HOURS.", valueName: "hours"))
    var uploadGraceHours: Int?

    func apply(to configuration: inout ServerConfiguration, environment env: [String: String]) throws {
        if let days = try tombstoneRetentionDays ?? envInt(env, "VAULTSYNC_TOMBSTONE_RETENTION_DAYS") {
            guard days >= 1 else { throw ValidationError("--tombstone-retention-days must be at least 1") }
            configuration.tombstoneRetention = .seconds(days * 86400)
        }
        if let days = try versionRetentionDays ?? envInt(env, "VAULTSYNC_VERSION_RETENTION_DAYS") {
            guard days >= 1 else { throw ValidationError("--version-retention-days must be at least 1") }
            configuration.versionRetention = .seconds(days * 86400)
        }
        if let hours = try uploadGraceHours ?? envInt(env, "VAULTSYNC_UPLOAD_GRACE_HOURS") {
            guard hours >= 0 else { throw ValidationError("--upload-grace-hours must not be negative") }
            configuration.uploadGrace = .seconds(hours * 3600)
        }
    }
}

struct Purge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the retention job once and exit.",
        discussion: """
            Removes tombstones past their retention (with the history of those files), old versions past
            --version-retention-days, the bytes of pushes never confirmed, and blobs nothing references.
            The server also runs this every --purge-interval-minutes.
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var retention: RetentionOptions

    @Option(help: ArgumentHelp("Blob store, as for 'serve'. Env: VAULTSYNC_BLOB_STORE.", valueName: "spec"))
    var blobStore: String?

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        let logger = try common.makeLogger(environment: env)
        var configuration = ServerConfiguration()
        try common.apply(to: &configuration, environment: env)
        try retention.apply(to: &configuration, environment: env)
        if let value = blobStore ?? env["VAULTSYNC_BLOB_STORE"] { configuration.blobStore = value }
        applySecrets(to: &configuration, environment: env)
        let report = try await VaultSyncServer.purge(configuration: configuration, logger: logger)
        print("purged \(report.tombstones) tombstones, \(report.oldVersions) old versions, \(report.abandonedUploads) abandoned uploads, \(report.blobs) unreferenced blobs")
    }
}
