public import Logging
import Foundation

/// Keeps every log line (message and metadata rendered as text) so tests can check what was logged.
public final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}

    /// A logger at trace level that writes here.
    public func logger() -> Logger {
        var logger = Logger(label: "capture") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Everything logged so far.
    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return lines.joined(separator: "\n")
    }

    /// Number of lines logged.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return lines.count
    }

    fileprivate func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(all.map { "\($0)=\($1)" }.sorted().joined(separator: " "))")
        }
    }
}
