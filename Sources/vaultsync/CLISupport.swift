import ArgumentParser
import CommandLineSecrets
import Foundation
import SyncClient
import SyncProtocol

/// Where the password comes from.
struct PasswordOptions: ParsableArguments {
    @Flag(help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    func password() throws -> String {
        try SecretSource(
            what: "password", stdin: passwordStdin, environment: "VAULTSYNC_PASSWORD", prompt: "Password: ",
            missing: "no password: set VAULTSYNC_PASSWORD or use --password-stdin"
        ).read()
    }
}

func serverURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
        throw ValidationError("--server '\(text)' is not an http(s) URL")
    }
    return url
}

func vaultURL(_ path: String?) -> URL {
    URL(fileURLWithPath: path ?? FileManager.default.currentDirectoryPath).standardizedFileURL
}

/// Whether `argument` names a folder linked to a vault (it holds `.vaultsync/`), so a command
/// whose other arguments are vault paths takes the folder first as `sync` does.
func isLinkedFolder(_ argument: String) -> Bool {
    var isFolder: ObjCBool = false
    let state = vaultURL(argument).appendingPathComponent(".vaultsync").path
    return FileManager.default.fileExists(atPath: state, isDirectory: &isFolder) && isFolder.boolValue
}

/// `count` and `noun`, plural unless the count is one: "1 file", "2 files".
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

func printJSON(_ value: some Encodable) throws {
    let encoder = WireCoding.encoder()
    encoder.outputFormatting.insert(.prettyPrinted)
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// A sync report as `--json` prints it: a run that failed as a whole (offline, signed out) also
/// carries `error` and `exit_code`, as every command's failure does with `--json`.
struct ReportOutput: Encodable {
    let report: SyncReport

    enum Keys: String, CodingKey {
        case error
        case exitCode = "exit_code"
    }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        guard let code = wholeRunExitCode(report) else { return }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(report.notices.last ?? report.status.rawValue, forKey: .error)
        try container.encode(code.rawValue, forKey: .exitCode)
    }
}

/// The exit code of a run that failed as a whole, nil otherwise.
func wholeRunExitCode(_ report: SyncReport) -> ExitCode? {
    switch report.status {
    case .offline: ExitCodes.offline
    case .unauthenticated: ExitCodes.unauthenticated
    default: nil
    }
}

/// Prints a sync report and turns its status into the exit code.
func finish(_ report: SyncReport, json: Bool) throws {
    if json {
        try printJSON(ReportOutput(report: report))
    } else {
        print("pushed \(report.pushed.count), pulled \(report.pulled.count), merged \(report.merged.count), deleted here \(report.deletedLocally.count), deleted on the server \(report.deletedRemotely.count)\(report.leftOut.isEmpty ? "" : ", left out here \(report.leftOut.count) (kept on the server)")")
        for notice in report.notices { print("note: \(notice)") }
        if let full = report.storageFull { print("storage full: \(full)") }
        printHeldDeletions(report.heldDeletions)
        for failure in report.failures { print("failed: \(failure)") }
        if !report.parked.isEmpty {
            print("\(report.parked.count) file\(report.parked.count == 1 ? "" : "s") parked after repeated failures: \(report.parked.map(\.rawValue).joined(separator: ", ")) (see 'vaultsync status', then 'vaultsync retry')")
        }
        if !report.conflicts.isEmpty {
            print("\(report.conflicts.count) conflict\(report.conflicts.count == 1 ? " needs" : "s need") you: \(report.conflicts.map(\.rawValue).joined(separator: ", ")) (see 'vaultsync conflicts')")
        }
        print("status: \(report.status.rawValue)")
    }
    try exitStatus(report)
}

/// Turns a sync report's status into the exit code (0 for IDLE, CONFLICT and HELD: those wait
/// for the user, and the output names what).
func exitStatus(_ report: SyncReport) throws {
    switch report.status {
    case .idle, .conflict, .held, .syncing: return
    case .offline: throw ExitCodes.offline
    case .unauthenticated: throw ExitCodes.unauthenticated
    case .error: throw ExitCodes.failure
    }
}

/// Says which deletions wait for the user, and how to let them through.
func printHeldDeletions(_ held: HeldDeletionsRecord?) {
    guard let held else { return }
    for line in held.summary { print("held back: \(line)") }
    print("nothing of that was deleted; if it is what you meant, run 'vaultsync sync --allow-mass-delete' (files deleted by mistake can be brought back with 'vaultsync restore --deleted-since')")
}

/// The documented exit codes.
enum ExitCodes {
    static let failure = ExitCode(1)
    static let offline = ExitCode(3)
    static let unauthenticated = ExitCode(4)
}

/// How `sync` and `watch` move bytes.
struct TransferOptions: ParsableArguments {
    @Option(help: "Uploads and downloads (or parts of one large file) in flight at once.") var transfers = 8
    @Option(help: "Files of at least this many MiB are uploaded in parts, resumably (at least 6).") var multipartThreshold = 64
    @Option(help: "The size of each part, in MiB (5 to 5120).") var partSize = 8

    func validate() throws {
        guard (1...64).contains(transfers) else { throw ValidationError("--transfers must be from 1 to 64") }
        guard multipartThreshold >= 6 else { throw ValidationError("--multipart-threshold must be at least 6 (MiB)") }
        guard (5...5120).contains(partSize) else { throw ValidationError("--part-size must be from 5 to 5120 (MiB)") }
    }

    var settings: TransferSettings {
        TransferSettings(
            parallelTransfers: transfers, multipartThreshold: Int64(multipartThreshold) * TransferSettings.mebibyte,
            partSize: Int64(partSize) * TransferSettings.mebibyte)
    }
}
