import Foundation
import SyncClient

/// Shows a sync's progress on standard error: a bar redrawn in place (files, bytes, rate, ETA) on a
/// terminal, and a plain line every few seconds otherwise, so logs stay readable.
final class ProgressPrinter: @unchecked Sendable {
    private let lock = NSLock()
    private let isTerminal: Bool
    /// When the transfers began: rates and ETAs leave the scan out.
    private var started: Date?
    private var lastDraw = Date.distantPast
    private var lastPhase: SyncProgress.Phase?
    private var drewBar = false

    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.isTerminal = isTerminal
    }

    var handler: SyncProgressHandler { { [self] in show($0) } }

    private func show(_ progress: SyncProgress) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let phaseChanged = progress.phase != lastPhase
        lastPhase = progress.phase
        if progress.phase == .waitingForOtherSync {
            write("waiting for another vaultsync process to finish syncing this vault...\n")
            return
        }
        if progress.phase == .finished {
            if drewBar { write("\n") }
            drewBar = false
            return
        }
        // Only runs with real work get a bar; a no-op sync prints nothing.
        guard progress.phase == .transferring, progress.filesTotal > 0 else { return }
        if phaseChanged || started == nil { started = now }
        let interval: TimeInterval = isTerminal ? 0.1 : 5
        let done = progress.filesDone == progress.filesTotal && progress.bytesDone >= progress.bytesTotal
        guard phaseChanged || done || now.timeIntervalSince(lastDraw) >= interval else { return }
        lastDraw = now
        let line = Self.describe(progress, elapsed: now.timeIntervalSince(started ?? now))
        if isTerminal {
            write("\r\u{1B}[2K" + Self.bar(progress) + " " + line)
            drewBar = true
        } else {
            write(line + "\n")
        }
    }

    static func describe(_ p: SyncProgress, elapsed: TimeInterval) -> String {
        var text = "\(p.filesDone)/\(p.filesTotal) files, \(megabytes(p.bytesDone))/\(megabytes(p.bytesTotal)) MB"
        if elapsed > 0.5, p.bytesDone > 0 {
            let rate = Double(p.bytesDone) / elapsed
            text += String(format: ", %.1f MB/s", rate / 1_000_000)
            if p.bytesTotal > p.bytesDone, rate > 0 {
                let left = Int((Double(p.bytesTotal - p.bytesDone) / rate).rounded(.up))
                text += ", ETA \(left / 60):" + (left % 60 < 10 ? "0" : "") + "\(left % 60)"
            }
        }
        return text
    }

    static func bar(_ p: SyncProgress, width: Int = 24) -> String {
        let fraction = p.bytesTotal > 0 ? Double(p.bytesDone) / Double(p.bytesTotal) : Double(p.filesDone) / Double(max(1, p.filesTotal))
        let filled = min(width, Int(fraction * Double(width)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }

    private static func megabytes(_ bytes: Int64) -> String { String(format: "%.1f", Double(bytes) / 1_000_000) }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
