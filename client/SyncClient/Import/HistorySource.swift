public import Foundation

/// Another system's history of files, read oldest first for `vaultsync import --from`: each file's
/// versions in time order, each with its bytes (or a deletion), time and origin. Read by one task
/// at a time.
public protocol HistorySource: AnyObject, Sendable {
    /// The import's device name, as history shows it ("git: notes").
    var name: String { get }
    /// Files the source holds that are not imported, with why (a symbolic link, a submodule).
    var leftOut: [String: String] { get }
    /// The next version, or nil at the end.
    func next() throws -> SourceVersion?
    /// Ends what the source runs (child processes), also when the import stopped early.
    func close()
}

/// One version of a file from another system's history.
public struct SourceVersion: Sendable, Equatable {
    /// The file's path in the source (relative, `/`-separated).
    public var path: String
    /// Its bytes; nil for a deletion.
    public var content: Data?
    public var time: Date
    public var origin: String

    public init(path: String, content: Data?, time: Date, origin: String) {
        (self.path, self.content, self.time, self.origin) = (path, content, time, origin)
    }
}

/// Why a source could not be read.
public struct HistorySourceError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
