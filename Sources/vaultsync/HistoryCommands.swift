import ArgumentParser
import Foundation
import SyncClient
import SyncCore
import SyncProtocol

func vaultPath(_ text: String) throws -> VaultPath {
    do {
        return try VaultPath(text)
    } catch {
        throw ValidationError("\(text): \(error)")
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the versions the server keeps of a file, newest first.")
    @Argument(help: "The path, relative to the vault.") var path: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let history = try await SyncEngine(root: vaultURL(vault)).history(try vaultPath(path))
        if json { return try printJSON(history) }
        for version in history.versions {
            let what = version.deleted ? "deleted" : "\(version.sizeBytes) bytes  \(version.contentHash?.rawValue.prefix(19) ?? "")…"
            let imported = version.importedAt.map { "imported \(WireDate.format($0))" }
            let notes = [imported, version.origin].compactMap { $0 }
            print("v\(version.version)  \(WireDate.format(version.createdAt))  \(version.madeBy)  \(what)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: ": ")))")")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make an old version of a file current again, bring back every file deleted since a time, or the whole vault as it was; then sync.",
        discussion: """
            'restore PATH --version N' makes version N of PATH current again (as a new version every device gets); it works \
            for deleted files too (see the versions with 'vaultsync history PATH'). 'restore --deleted-since TIME [--under FOLDER]' \
            brings back every file deleted on the server at or after TIME, each with its content before the deletion, in one \
            server call. 'restore --as-of TIME [--under FOLDER] [--dry-run]' sets every file back as it was at TIME, in one \
            change every device gets: files changed since take their content then, files deleted since come back, files \
            made since are deleted (restorable); restoring as of just before it undoes it. TIME is an ISO 8601 time \
            (2026-11-27T09:00:00Z), a date and time in this device's zone (2026-11-27T09:00, 2026-11-27), 'yesterday 09:00', \
            'today 14:30', or a span ago (2h ago, 90m, 3 days ago).
            """)
    @Argument(help: "The path, relative to the vault.") var path: String?
    @Option(help: "The version to restore.") var version: Int?
    @Option(help: "Bring back every file deleted at or after this time.") var deletedSince: String?
    @Option(help: "Set every file back as it was at this time.") var asOf: String?
    @Option(help: "With --deleted-since or --as-of: only files under this folder of the vault.") var under: String?
    @Flag(help: "With --as-of: say what would change, and change nothing.") var dryRun = false
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        if dryRun && asOf == nil { throw ValidationError("--dry-run goes with --as-of") }
        switch (path, version, deletedSince, asOf) {
        case (_?, _?, nil, nil): if under != nil { throw ValidationError("--under goes with --deleted-since or --as-of") }
        case (nil, nil, let since?, nil): _ = try Self.time(since, option: "--deleted-since", now: Date())
        case (nil, nil, nil, let moment?): _ = try Self.time(moment, option: "--as-of", now: Date())
        case (nil, _, nil, nil): throw ValidationError("name a PATH and --version, or give --deleted-since or --as-of")
        case (_?, nil, nil, nil): throw ValidationError("which version of \(path ?? "")? Add --version (see 'vaultsync history \(path ?? "")')")
        case (_, _, _?, _?): throw ValidationError("--deleted-since and --as-of are two restores: give one")
        default: throw ValidationError("--deleted-since and --as-of restore many files: give them without a PATH or --version")
        }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        if let asOf { return try await restoreAsOf(engine, try Self.time(asOf, option: "--as-of", now: Date())) }
        guard let since = deletedSince else {
            let (answer, report) = try await engine.restore(try vaultPath(path ?? ""), version: version ?? 0)
            if !json { print("\(path ?? ""): version \(answer.restoredFrom) restored as version \(answer.restored.version)") }
            return try finish(report, json: json)
        }
        let (answer, report) = try await engine.restoreDeleted(since: try Self.time(since, option: "--deleted-since", now: Date()), under: under)
        if json {
            try printJSON(RestoredDeleted(restored: answer.restored.map(\.path.rawValue), skipped: answer.skipped, sync: report))
            return try exitStatus(report)
        }
        print("restored \(answer.restored.count) deleted file\(answer.restored.count == 1 ? "" : "s")\(under.map { " under \($0)/" } ?? "")")
        for skipped in answer.skipped { print("not restored: \(skipped.path): \(skipped.message)") }
        try finish(report, json: false)
    }

    private func restoreAsOf(_ engine: SyncEngine, _ moment: Date) async throws {
        let (answer, report) = try await engine.restoreAsOf(moment, under: under, dryRun: dryRun)
        if json {
            try printJSON(RestoredAsOf(answer: answer, sync: report))
            return try report.map(exitStatus) ?? ()
        }
        let scope = under.map { " under \($0)/" } ?? ""
        let counts = "\(counted(answer.changed.count, "file")) set back, \(answer.broughtBack.count) brought back, \(answer.deleted.count) deleted"
        if dryRun {
            print("as of \(WireDate.format(moment))\(scope) this would change: \(counts)\(answer.notRestorable.isEmpty ? "" : ", \(answer.notRestorable.count) not restorable") (nothing changed: --dry-run)")
        } else {
            print("restored the vault\(scope) as of \(WireDate.format(moment)): \(counts)")
        }
        for file in answer.changed { print("  set back: \(file.path)") }
        for file in answer.broughtBack { print("  brought back: \(file.path)") }
        for file in answer.deleted { print("  deleted: \(file.path)") }
        for file in answer.notRestorable { print("  not restorable: \(file.path): \(file.message)") }
        if let report, let made = answer.restoredAt {
            if answer.changed.count + answer.broughtBack.count + answer.deleted.count > 0 {
                print("undo it with: vaultsync restore --as-of \(WireDate.format(made.addingTimeInterval(-0.001)))\(under.map { " --under \($0)" } ?? "")")
            }
            try finish(report, json: false)
        }
    }

    /// The `--deleted-since --json` document.
    struct RestoredDeleted: Encodable {
        var restored: [String]
        var skipped: [FileError]
        var sync: SyncReport
    }

    /// The `--as-of --json` document: the server's answer, and the sync after it (none in a dry run).
    struct RestoredAsOf: Encodable {
        var answer: RestoreAsOfResponse
        var sync: SyncReport?

        func encode(to encoder: any Encoder) throws {
            try answer.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encodeIfPresent(sync, forKey: .sync)
        }

        enum Key: String, CodingKey { case sync }
    }

    /// A moment as typed (``MomentText``), or a usage error naming `option`.
    static func time(_ text: String, option: String, now: Date) throws -> Date {
        if let date = MomentText.parse(text, now: now) { return date }
        throw ValidationError("\(option) '\(text)' is not a time: give 2026-11-27T09:00:00Z, 2026-11-27T09:00 (this device's zone), yesterday 09:00, or a span ago such as 2h ago, 90m or 3 days ago")
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download the whole vault as a zip (every current file, plus vaultsync-export.json), verified against its manifest.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Option(help: "Where to write the zip.") var out: String

    func run() async throws {
        let destination = URL(fileURLWithPath: out).standardizedFileURL
        let manifest = try await SyncEngine(root: vaultURL(directory)).export(to: destination, progress: ProgressPrinter().handler)
        let bytes = manifest.files.reduce(Int64(0)) { $0 + $1.sizeBytes }
        print("exported \(counted(manifest.files.count, "file")) (\(bytes) bytes) to \(destination.path); every entry matches the manifest")
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring files in: an archive written by 'vaultsync export', or a git repository's or a Syncthing folder's files with their history.",
        discussion: """
            --from archive (the default): recreates an exported vault in an empty linked vault (link an empty folder to an empty vault first: 'vaultsync init DIR --server URL --email E').
            --from git REPO: every commit of the branch (its first-parent line) that changed a file of its last tree becomes a version of that file, with the commit's time and its id, author and subject as origin; renames are followed, binary files included. The files go under --under FOLDER when given.
            --from syncthing FOLDER: each file's versions in FOLDER/.stversions, then its current content; a file only in .stversions comes in deleted.
            Imported versions are written by a device named for the import ('git: notes') and marked imported in history. A path the vault holds a file at that the import did not write is left as it is (reported). Running the same import again skips what it wrote. Plain vaults only.
            """)
    enum Source: String, ExpressibleByArgument, CaseIterable {
        case archive, git, syncthing
    }

    @Argument(help: "The zip written by 'vaultsync export', the git repository, or the Syncthing folder.") var source: String
    @Option(help: "What SOURCE is: archive, git or syncthing.") var from: Source = .archive
    @Option(help: "The branch to import (--from git; default: the one checked out).") var branch: String?
    @Option(help: "A vault folder to import into (--from git or syncthing; default: the vault's top).") var under: String?
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the report as JSON.") var json = false

    func validate() throws {
        if from == .archive, branch != nil || under != nil { throw ValidationError("--branch and --under are for --from git or syncthing") }
        if from == .syncthing, branch != nil { throw ValidationError("--branch is for --from git") }
    }

    func run() async throws {
        let input = URL(fileURLWithPath: source).standardizedFileURL
        let engine = try SyncEngine(root: vaultURL(vault))
        let history: any HistorySource
        switch from {
        case .archive:
            let (manifest, report) = try await engine.importArchive(input, progress: ProgressPrinter().handler)
            if !json { print("imported \(counted(manifest.files.count, "file")) from \(input.path)") }
            return try finish(report, json: json)
        case .git: history = try GitHistory(repository: input, branch: branch)
        case .syncthing: history = try SyncthingHistory(folder: input)
        }
        let (imported, report) = try await engine.importHistory(history, under: under)
        if json {
            try printJSON(ImportedHistory(imported: imported, sync: report))
            return try exitStatus(report)
        }
        print("imported \(counted(imported.versions, "version")) of \(counted(imported.files, "file")) from \(input.path) as '\(imported.device)'\(imported.skipped > 0 ? " (\(imported.skipped) held already)" : "")")
        for file in imported.rejected { print("  not imported: \(file.path): \(file.message)") }
        for (path, why) in imported.leftOut.sorted(by: { $0.key < $1.key }) { print("  left out: \(path): \(why)") }
        try finish(report, json: false)
    }

    /// The `--from git|syncthing --json` document: the import, and the sync after it.
    struct ImportedHistory: Encodable {
        var imported: HistoryImportReport
        var sync: SyncReport
    }
}
