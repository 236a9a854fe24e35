import ArgumentParser
import Foundation
import SyncServer

struct CollectGarbage: AsyncParsableCommand, ReadsSettings {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove what the blob store holds that nothing names.",
        discussion: discussion("""
            Lists the whole store (S3 ListObjectsV2 pages, the file store's folders) and removes blobs no row \
            names that were written longer ago than the upload grace (uploads in flight are younger), each \
            under the same lock and check as the purge, then multipart uploads no session names (S3 \
            ListMultipartUploads and abort; the file store's session folders) and temporary files of uploads \
            cut off. Names that are not blob keys are listed and left alone. --dry-run only counts. The server \
            can run this on a schedule: 'serve --gc-interval'.
            """))
    static let settings = ServerSettings.common + ServerSettings.storage + [ServerSettings.uploadGrace]

    @Flag(help: "Count what would be removed; remove nothing.")
    var dryRun = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        let (values, logger) = try Self.setUp()
        let report = try await VaultSyncServer.collectGarbage(configuration: values.configuration, dryRun: dryRun, logger: logger)
        if json {
            try printReport(report)
        } else if report.skipped {
            print("nothing collected: another server instance is purging this database now (one at a time); try again later")
        } else {
            let verb = dryRun ? "would remove" : "removed"
            print("listed \(report.listed) blobs: \(verb) \(report.orphans) that nothing names (\(report.orphanBytes) bytes), \(report.uploadsAborted) orphan multipart uploads and \(report.temporaryFiles) temporary files; kept \(report.young) written within the upload grace")
            for stray in report.strays { print("  not a blob key, left alone: \(stray)") }
        }
    }
}

/// Prints a report as one JSON object with sorted keys (`--json`).
func printReport(_ report: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
}
