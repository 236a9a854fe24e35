import ArgumentParser
import Foundation
import SyncServer

/// `vaultsync-server blobs …`: operations on the blob store.
struct Blobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Operations on the blob store.",
        subcommands: [MigrateBlobs.self])
}

struct MigrateBlobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy every blob to another store (e.g. from the built-in file store to S3).",
        discussion: """
            Copies the blobs the database names from the current store (--blob-store, default the file store in \
            the data folder) to --to, each checked against its hash as it is stored. Blobs already there are \
            skipped: an interrupted run continues where it stopped. The server can keep running meanwhile. Then \
            restart the server with --blob-store set to the new store, and run this once more with the old store \
            as --blob-store and the new one as --to: it copies only what arrived in between. \
            S3 credentials come from the environment, as for 'serve'. Exit status 1 when blobs the database names \
            are missing from the source (listed; the rest is copied).
            """)

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("The store the blobs are in now, as for 'serve'. Default: file. Env: VAULTSYNC_BLOB_STORE.", valueName: "spec"))
    var blobStore: String?

    @Option(help: ArgumentHelp("The store to copy them to: s3://BUCKET?region=…&endpoint=…, or file:///path.", valueName: "spec"))
    var to: String

    @Flag(help: "Create the destination's S3 bucket if it does not exist.")
    var s3CreateBucket = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        let (env, logger, base) = try common.setUp()
        var configuration = base
        if let value = blobStore ?? env["VAULTSYNC_BLOB_STORE"] { configuration.blobStore = value }
        applySecrets(to: &configuration, environment: env)
        let interactive = isatty(STDERR_FILENO) == 1
        let report = try await VaultSyncServer.migrateBlobs(configuration: configuration, to: to, createBucket: s3CreateBucket, logger: logger) { so in
            guard interactive else { return }
            FileHandle.standardError.write(Data("\rcopied \(so.copied), already there \(so.alreadyThere)".utf8))
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("copied \(report.copied) blobs (\(report.copiedBytes) bytes); \(report.alreadyThere) were there already")
            if !report.missingAtSource.isEmpty {
                print("missing from the source (named by the database, not copied): \(report.missingAtSource.count)")
                for blob in report.missingAtSource.prefix(50) { print("  \(blob)") }
            }
        }
        if !report.missingAtSource.isEmpty { throw ExitCode(1) }
    }
}
