import ArgumentParser
import Foundation
import SyncServer

struct Purge: AsyncParsableCommand, ReadsSettings {
    static let settings = ServerSettings.common + ServerSettings.retention + ServerSettings.storage
    static let configuration = CommandConfiguration(
        abstract: "Run the retention job once and exit.",
        discussion: discussion("""
            Removes tombstones past their retention (with the history of those files), old versions past \
            --version-retention, the bytes of pushes never confirmed, and blobs nothing references. \
            The server also runs this every --purge-interval-minutes.
            """))

    func run() async throws {
        let (values, logger) = try Self.setUp()
        let report = try await VaultSyncServer.purge(configuration: values.configuration, logger: logger)
        guard !report.skipped else {
            print("nothing purged: another server instance is purging this database now (one at a time); try again later")
            return
        }
        print("purged \(report.tombstones) tombstones, \(report.oldVersions) old versions, \(report.abandonedUploads) abandoned uploads, \(report.blobs) unreferenced blobs")
    }
}
