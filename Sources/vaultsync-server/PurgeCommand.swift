import ArgumentParser
import Foundation
import SyncServer

/// How long deleted and old data is kept (shared by `serve` and `purge`).
struct RetentionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("How long tombstones (and the history of deleted files) are kept, as 90d, 12h, 15m or 30s; 0 purges them at the next purge. Devices offline for longer reconcile from the full state. Default 90d. Env: VAULTSYNC_TOMBSTONE_RETENTION.", valueName: "duration"))
    var tombstoneRetention: String?

    @Option(help: ArgumentHelp("How long old versions of existing files are kept, as 90d, 12h, 15m or 30s; 0 keeps only the current version. Default: as long as the file exists. Env: VAULTSYNC_VERSION_RETENTION.", valueName: "duration"))
    var versionRetention: String?

    @Option(help: ArgumentHelp("How long the bytes of a push that was never confirmed are kept after its reservation expired, as 24h, 30m, 0, …. Default 24h. Env: VAULTSYNC_UPLOAD_GRACE.", valueName: "duration"))
    var uploadGrace: String?

    func apply(to configuration: inout ServerConfiguration, environment env: [String: String]) throws {
        if let value = try duration(tombstoneRetention, flag: "tombstone-retention", env, "VAULTSYNC_TOMBSTONE_RETENTION") {
            configuration.tombstoneRetention = value
        }
        if let value = try duration(versionRetention, flag: "version-retention", env, "VAULTSYNC_VERSION_RETENTION") {
            configuration.versionRetention = value
        }
        if let value = try duration(uploadGrace, flag: "upload-grace", env, "VAULTSYNC_UPLOAD_GRACE") {
            configuration.uploadGrace = value
        }
    }

    /// The flag's value, else the environment's, parsed; the error names where the bad text came from.
    private func duration(_ flagValue: String?, flag: String, _ env: [String: String], _ key: String) throws -> Duration? {
        guard let text = flagValue ?? env[key] else { return nil }
        do {
            return try DurationText.parse(text)
        } catch {
            throw ValidationError("\(flagValue != nil ? "--\(flag)" : key): \(error)")
        }
    }
}

struct Purge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the retention job once and exit.",
        discussion: """
            Removes tombstones past their retention (with the history of those files), old versions past \
            --version-retention, the bytes of pushes never confirmed, and blobs nothing references. \
            The server also runs this every --purge-interval-minutes.
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var retention: RetentionOptions

    @Option(help: ArgumentHelp("Blob store, as for 'serve'. Env: VAULTSYNC_BLOB_STORE.", valueName: "spec"))
    var blobStore: String?

    func run() async throws {
        let (env, logger, configured) = try common.setUp(blobStore: blobStore)
        var configuration = configured
        try retention.apply(to: &configuration, environment: env)
        let report = try await VaultSyncServer.purge(configuration: configuration, logger: logger)
        guard !report.skipped else {
            print("nothing purged: another server instance is purging this database now (one at a time); try again later")
            return
        }
        print("purged \(report.tombstones) tombstones, \(report.oldVersions) old versions, \(report.abandonedUploads) abandoned uploads, \(report.blobs) unreferenced blobs")
    }
}
