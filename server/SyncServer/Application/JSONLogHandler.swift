public import Foundation
public import Logging
import SyncProtocol

/// One JSON object per log line (`--log-format json`), for log shippers: `time` (RFC 3339, UTC,
/// milliseconds), `level`, `label`, `message`, `source`, and every metadata field at the top
/// level (the request line's `hb.request.id`, `http.method`, `http.status`, …). Nested metadata
/// becomes JSON arrays and objects; a metadata key named like a fixed field is prefixed `meta.`.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes (standard error by default).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [
            "time": WireDate.format(Date()), "level": event.level.rawValue, "label": label, "message": "\(event.message)", "source": event.source,
        ]
        let merged = metadata.merging(metadataProvider?.get() ?? [:]) { $1 }.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged { fields[fields[key] == nil ? key : "meta." + key] = Self.json(value) }
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): "\(convertible)"
        case .array(let items): items.map(json)
        case .dictionary(let entries): entries.mapValues(json)
        }
    }

    /// Writes whole lines to standard error (one `write` each, so lines of concurrent tasks do not interleave).
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }
}
