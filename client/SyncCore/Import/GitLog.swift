public import Foundation

/// One commit of `git log --raw -z` as ``GitLog`` reads it: who, when, and each file it changed.
public struct GitCommit: Sendable, Equatable {
    public var id: String
    /// The committer's time (it follows the branch's order; an author's time may not).
    public var time: Date
    public var author: String
    public var email: String
    public var subject: String
    public var changes: [GitChange]

    public init(id: String, time: Date, author: String, email: String, subject: String, changes: [GitChange] = []) {
        (self.id, self.time, self.author, self.email, self.subject, self.changes) = (id, time, author, email, subject, changes)
    }

    /// As history shows it: `git 1a2b3c4 by Ana Lima <ana@example.org>: Fix the intro` (one line, at most `limit` characters).
    public func origin(limit: Int = 300) -> String {
        let line = "git \(id.prefix(7)) by \(author) <\(email)>: \(subject)"
        let clean = String(line.unicodeScalars.filter { $0.properties.generalCategory != .control }.map(Character.init))
        return clean.count <= limit ? clean : String(clean.prefix(limit - 1)) + "…"
    }
}

/// One entry of `--raw`: a file added, modified, deleted, renamed or changed in type.
public struct GitChange: Sendable, Equatable {
    /// `A`, `M`, `D`, `R`, `C` or `T` (a rename's and copy's score dropped).
    public var status: Character
    public var newMode: String
    /// The blob after the change (all zeros for a deletion).
    public var newBlob: String
    /// The path before a rename or copy, else the path.
    public var path: String
    /// A rename's or copy's new path.
    public var newPath: String?

    public init(status: Character, newMode: String, newBlob: String, path: String, newPath: String? = nil) {
        (self.status, self.newMode, self.newBlob, self.path, self.newPath) = (status, newMode, newBlob, path, newPath)
    }

    /// Where the file is after the change.
    public var destination: String { newPath ?? path }
    /// A regular file (not a symbolic link, nor a submodule) after the change.
    public var isRegularFile: Bool { newMode == "100644" || newMode == "100755" }
}

/// Reads the output of `git log --raw -z --no-abbrev --format=%x01%H%x00%ct%x00%an%x00%ae%x00%s`
/// as it streams, one NUL-terminated token at a time: a token starting with U+0001 begins a commit
/// (its id, then time, author, email and subject), one starting with `:` is a `--raw` entry (its
/// modes, blobs and status), followed by its path or two. Pure: tokens in, commits out.
public struct GitLog: Sendable {
    private var commit: GitCommit?
    private var header: [String] = []
    private var entry: (status: Character, mode: String, blob: String)?
    private var paths: [String] = []

    public init() {}

    /// Takes one token; returns the commit it completed, if any.
    public mutating func take(_ raw: String) throws(GitLogError) -> GitCommit? {
        var token = Substring(raw)
        if token.first == "\n" { token = token.dropFirst() }
        if token.first == "\u{1}" {
            let done = try finish()
            header = [String(token.dropFirst())]
            return done
        }
        if !header.isEmpty {
            header.append(String(token))
            if header.count == 5 {
                guard let seconds = TimeInterval(header[1]) else { throw GitLogError("commit \(header[0]) has no time: '\(header[1])'") }
                commit = GitCommit(id: header[0], time: Date(timeIntervalSince1970: seconds), author: header[2], email: header[3], subject: header[4])
                header = []
            }
            return nil
        }
        if token.first == ":" {
            let fields = token.dropFirst().split(separator: " ")
            guard fields.count == 5, let status = fields[4].first else { throw GitLogError("not a raw diff entry: '\(token)'") }
            entry = (status, String(fields[1]), String(fields[3]))
            paths = []
            return nil
        }
        guard let current = entry else {
            if token.isEmpty { return nil }
            throw GitLogError("unexpected '\(token)' in git log")
        }
        paths.append(String(token))
        if current.status == "R" || current.status == "C", paths.count < 2 { return nil }
        commit?.changes.append(GitChange(status: current.status, newMode: current.mode, newBlob: current.blob, path: paths[0], newPath: paths.count > 1 ? paths[1] : nil))
        entry = nil
        return nil
    }

    /// The last commit, once the output ended.
    public mutating func finish() throws(GitLogError) -> GitCommit? {
        if entry != nil { throw GitLogError("git log ended inside an entry") }
        defer { commit = nil }
        return commit
    }
}

public struct GitLogError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
