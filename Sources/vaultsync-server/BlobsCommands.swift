import ArgumentParser
import Foundation
import SyncServer

/// `vaultsync-server blobs …`: operations on the blob store.
struct Blobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Operations on the blob store.",
        subcommands: [MigrateBlobs.self, VerifyBlobs.self, CollectGarbage.self])
}

struct MigrateBlobs: AsyncParsableCommand, ReadsSettings {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy every blob to another store (e.g. from the built-in file store to S3).",
        discussion: discussion("""
            Copies the blobs the database names from the current store (--blob-store, default the file store in \
            the data folder) to --to, each checked against its hash as it is stored. Blobs already there are \
            skipped: an interrupted run continues where it stopped. The server can keep running meanwhile. Then \
            restart the server with --blob-store set to the new store, and run this once more with the old store \
            as --blob-store and the new one as --to: it copies only what arrived in between. \
            S3 credentials come from the environment, as for 'serve'. Exit status 1 when blobs the database names \
            are missing from the source (listed; the rest is copied).
            """))
    static let settings = ServerSettings.common + ServerSettings.storage


    @Option(help: ArgumentHelp("The store to copy them to: s3://BUCKET?region=…&endpoint=…, or file:///path.", valueName: "spec"))
    var to: String

    @Flag(help: "Create the destination's S3 bucket if it does not exist.")
    var s3CreateBucket = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        let (values, logger) = try Self.setUp()
        let configuration = values.configuration
        let interactive = isatty(STDERR_FILENO) == 1
        let report = try await VaultSyncServer.migrateBlobs(configuration: configuration, to: to, createBucket: s3CreateBucket, logger: logger) { so in
            guard interactive else { return }
            FileHandle.standardError.write(Data("\rcopied \(so.copied), already there \(so.alreadyThere)".utf8))
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        if json {
            try printReport(report)
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

struct VerifyBlobs: AsyncParsableCommand, ReadsSettings {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that the store holds every blob the database names, whole.",
        discussion: discussion("""
            Walks every blob the database records (live files, retained versions, conflict records, export \
            archives) and checks that the store has it with the recorded size; with --deep it also reads each \
            one and checks its hash. Then it checks that every blob a version names was recorded. It only \
            reads, a page at a time, and can run beside a live server. Each problem is listed with the paths \
            and versions that name the blob and the device that wrote each (it may still hold the bytes). \
            Exit status 0 when everything held, 1 when a problem was found; --after continues a run from a \
            report's last_checked.
            """))
    static let settings = ServerSettings.common + ServerSettings.storage

    @Option(help: "Check only this vault (its id).")
    var vault: String?

    @Flag(help: "Read every blob and check its hash too (slower: reads the whole store).")
    var deep = false

    @Option(help: ArgumentHelp("Continue after this blob (a report's last_checked, VAULT/HASH).", valueName: "blob"))
    var after: String?

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        let (values, logger) = try Self.setUp()
        let configuration = values.configuration
        let vaultID = try vault.map { text in
            guard let id = UUID(uuidString: text) else { throw ValidationError("--vault '\(text.prefix(64))' is not a vault id") }
            return id
        }
        let interactive = isatty(STDERR_FILENO) == 1
        let report = try await VaultSyncServer.verifyBlobs(configuration: configuration, vault: vaultID, deep: deep, after: after, logger: logger) { so in
            guard interactive else { return }
            FileHandle.standardError.write(Data("\rchecked \(so.checked) blobs, \(so.problems.count) problems".utf8))
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        if json {
            try printReport(report)
        } else {
            print("checked \(report.checked) blobs (\(report.checkedBytes) bytes)\(report.deep ? ", read and hashed" : ", present with their size"): \(report.held ? "all held" : "\(report.problems.count) problems")")
            for problem in report.problems.prefix(100) {
                let found = problem.foundBytes.map { ", found \($0)" } ?? ""
                print("  \(problem.kind.rawValue): vault \(problem.vaultID.uuidString.lowercased()) \(problem.contentHash) (\(problem.expectedBytes) bytes\(found))")
                for reference in problem.references {
                    print("    \(reference.path) version \(reference.version)\(reference.current ? " (current)" : "")\(reference.device.map { ", written by \($0)" } ?? "")")
                }
            }
        }
        if !report.held { throw ExitCode(1) }
    }
}
