import ArgumentParser
import Foundation
import SyncClient
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
            print("v\(version.version)  \(WireDate.format(version.createdAt))  \(version.madeBy)  \(what)")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make an old version of a file current again, or bring back every file deleted since a time; then sync.",
        discussion: """
            'restore PATH --version N' makes version N of PATH current again (as a new version every device gets); it works \
            for deleted files too (see the versions with 'vaultsync history PATH'). 'restore --deleted-since TIME [--under FOLDER]' \
            brings back every file deleted on the server at or after TIME, each with its content before the deletion, in one \
            server call; TIME is an ISO 8601 date or time (2026-11-24, 2026-11-24T09:30:00Z) or a span ago (90m, 6h, 2d).
            """)
    @Argument(help: "The path, relative to the vault.") var path: String?
    @Option(help: "The version to restore.") var version: Int?
    @Option(help: "Bring back every file deleted at or after this time.") var deletedSince: String?
    @Option(help: "With --deleted-since: only files under this folder of the vault.") var under: String?
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        switch (path, version, deletedSince) {
        case (_?, _?, nil): if under != nil { throw ValidationError("--under goes with --deleted-since") }
        case (nil, nil, let since?): _ = try Self.time(since, now: Date())
        case (nil, _, nil): throw ValidationError("name a PATH and --version, or give --deleted-since")
        case (_?, nil, nil): throw ValidationError("which version of \(path ?? "")? Add --version (see 'vaultsync history \(path ?? "")')")
        default: throw ValidationError("--deleted-since brings back many files: give it without a PATH or --version")
        }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        guard let since = deletedSince else {
            let (answer, report) = try await engine.restore(try vaultPath(path ?? ""), version: version ?? 0)
            if !json { print("\(path ?? ""): version \(answer.restoredFrom) restored as version \(answer.restored.version)") }
            return try finish(report, json: json)
        }
        let (answer, report) = try await engine.restoreDeleted(since: try Self.time(since, now: Date()), under: under)
        if json {
            try printJSON(RestoredDeleted(restored: answer.restored.map(\.path.rawValue), skipped: answer.skipped, sync: report))
            return try exitStatus(report)
        }
        print("restored \(answer.restored.count) deleted file\(answer.restored.count == 1 ? "" : "s")\(under.map { " under \($0)/" } ?? "")")
        for skipped in answer.skipped { print("not restored: \(skipped.path): \(skipped.message)") }
        try finish(report, json: false)
    }

    /// The `--deleted-since --json` document.
    struct RestoredDeleted: Encodable {
        var restored: [String]
        var skipped: [FileError]
        var sync: SyncReport
    }

    /// An ISO 8601 date or time, or a span before `now` ("90m", "6h", "2d", "1w").
    static func time(_ text: String, now: Date) throws -> Date {
        if let date = WireDate.parse(text) { return date }
        if let day = WireDate.parse(text + "T00:00:00Z") { return day }  // a date alone: midnight UTC
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        if let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0, count.isFinite {
            return now.addingTimeInterval(-count * unit)
        }
        throw ValidationError("--deleted-since '\(text)' is not a time: give 2026-11-24, 2026-11-24T09:30:00Z, or a span ago such as 90m, 6h or 2d")
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
        abstract: "Recreate an exported vault in an empty linked vault (this or another server), then sync.",
        discussion: "Link an empty folder to an empty vault first ('vaultsync init DIR --server URL --email E').")
    @Argument(help: "The zip written by 'vaultsync export'.") var archive: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the sync report as JSON.") var json = false

    func run() async throws {
        let zip = URL(fileURLWithPath: archive).standardizedFileURL
        let (manifest, report) = try await SyncEngine(root: vaultURL(vault)).importArchive(zip, progress: ProgressPrinter().handler)
        if !json { print("imported \(counted(manifest.files.count, "file")) from \(zip.path)") }
        try finish(report, json: json)
    }
}
