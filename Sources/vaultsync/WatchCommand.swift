import ArgumentParser
import Dispatch
import Foundation
import Logging
import SyncClient
import SyncCore
import SyncProtocol

/// `vaultsync watch`: keeps the vault in sync until stopped (SIGINT or SIGTERM: the running sync
/// stops between files, the lock is released, exit 0).
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep a linked folder in sync on its own: sync on local changes and on the server's change feed, until stopped.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print one JSON object per line for each event (sync started/finished, connection).") var json = false
    @Option(help: "Seconds a changed file must be quiet before it is synced.") var debounce = 1.0
    @Option(help: "Longest wait, in seconds, while files keep changing.") var maxDelay = 120.0
    @Option(help: "Seconds from a sync that read the whole folder to the next safety-net sync.") var safetyInterval = 600.0
    @Option(help: "Seconds between scans where the file system cannot report changes.") var pollInterval = 5.0
    @Flag(help: "Hear of the server's changes by long polls instead of a WebSocket (for proxies that do not pass WebSockets).") var longPoll = false
    @Flag(help: "Carry out deletions of most of the vault instead of holding them back (see 'vaultsync sync --help').") var allowMassDelete = false
    @OptionGroup var transfer: TransferOptions

    func validate() throws {
        for (name, value) in [("--debounce", debounce), ("--max-delay", maxDelay), ("--safety-interval", safetyInterval), ("--poll-interval", pollInterval)]
        where !(value.isFinite && value > 0) {
            throw ValidationError("\(name) must be a positive number of seconds")
        }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(directory), transfers: transfer.settings, massDeletePolicy: allowMassDelete ? .allowAll : .standard)
        var settings = WatchSettings()
        settings.schedule.debounce = .seconds(debounce)
        settings.schedule.maxDelay = .seconds(maxDelay)
        settings.schedule.safetyInterval = .seconds(safetyInterval)
        settings.pollInterval = .seconds(pollInterval)
        settings.longPoll = longPoll
        let printer = WatchPrinter(json: json, root: engine.root.path)
        var logger = Logger(label: "vaultsync")
        logger.logLevel = .error
        let watcher = VaultWatcher(engine: engine, settings: settings, logger: logger) { printer.print($0) }
        let task = Task { try await watcher.run() }
        let stops = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        try await task.value
        printer.stopped()
    }
}

/// Prints watch events: a line of text each, or a JSON object per line.
struct WatchPrinter: Sendable {
    let json: Bool
    /// The vault's folder, named once the watcher holds it (not before: a second watcher is refused).
    let root: String

    private struct Line: Encodable {
        var event: String
        var time = Date()
        var reason: String?
        var report: SyncReport?
        var error: String?
        var connected: Bool?
        var detail: String?
    }

    func print(_ event: WatchEvent) {
        let line: Line
        switch event {
        case .syncStarted(let reason): line = Line(event: "sync_started", reason: reason)
        case .syncFinished(let report): line = Line(event: "sync_finished", report: report)
        case .syncFailed(let error): line = Line(event: "sync_failed", error: error)
        case .connection(let connected, let detail): line = Line(event: "connection", connected: connected, detail: detail)
        case .rulesChanged: line = Line(event: "rules_changed")
        }
        json ? emit(line) : emitText(event)
    }

    func stopped() {
        json ? emit(Line(event: "stopped")) : write("stopped")
    }

    private func emit(_ line: Line) {
        guard let data = try? WireCoding.encoder().encode(line) else { return }
        write(String(decoding: data, as: UTF8.self))
    }

    private func emitText(_ event: WatchEvent) {
        switch event {
        case .syncStarted(let reason): if reason == "start" { write("watching \(root) (Ctrl-C to stop)") }
        case .syncFinished(let report):
            guard report.changedAnything || report.status != .idle || !report.notices.isEmpty else { return }
            var parts: [String] = []
            if !report.pushed.isEmpty { parts.append("pushed \(report.pushed.map(\.rawValue).joined(separator: ", "))") }
            if !report.pulled.isEmpty { parts.append("pulled \(report.pulled.map(\.rawValue).joined(separator: ", "))") }
            if !report.merged.isEmpty { parts.append("merged \(report.merged.map(\.rawValue).joined(separator: ", "))") }
            let deleted = report.deletedLocally + report.deletedRemotely
            if !deleted.isEmpty { parts.append("deleted \(deleted.map(\.rawValue).joined(separator: ", "))") }
            if !report.conflicts.isEmpty { parts.append("conflicts: \(report.conflicts.map(\.rawValue).joined(separator: ", "))") }
            write("\(timestamp()) \(report.status.rawValue)\(parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))")
            for notice in report.notices { write("  note: \(notice)") }
            for failure in report.failures { write("  failed: \(failure)") }
            for line in report.heldDeletions?.summary ?? [] { write("  held back: \(line); run 'vaultsync sync --allow-mass-delete' if it is meant") }
        case .syncFailed(let error): write("\(timestamp()) sync failed: \(error)")
        case .connection(true, _): write("\(timestamp()) connected to the server's change feed")
        case .connection(false, let detail): write("\(timestamp()) OFFLINE: \(detail ?? "disconnected"); local changes are queued")
        case .rulesChanged: write("\(timestamp()) this device's folders or ignore rules changed: watching with them now")
        }
    }

    private func timestamp() -> String { WireDate.format(Date()) }

    /// Whole lines, flushed at once: a status bar reads them as they come.
    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
