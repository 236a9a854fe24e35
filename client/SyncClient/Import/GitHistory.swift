public import Foundation
public import SyncCore

/// A git repository's branch as a ``HistorySource``: every commit on its first-parent line, oldest
/// first, that changed a file of its last tree is a version of that file (renames followed, see
/// ``GitLineages``), at the commit's time, with its id, author and subject as origin. The log and
/// the blobs stream from `git` (`git log --raw -z`, `git cat-file --batch`): the history is never
/// held whole, only the last tree's paths and the renames' decisions.
public final class GitHistory: HistorySource, @unchecked Sendable {
    public let name: String
    public private(set) var leftOut: [String: String] = [:]
    /// The branch's last commit.
    public let tip: String
    private let repository: URL
    private var lineages: GitLineages
    private let log: GitProcess
    private let logReader: PipeReader
    private var parser = GitLog()
    private let blobs: GitProcess
    private let blobReader: PipeReader
    private var pending: [SourceVersion] = []
    private var done = false

    /// Opens `branch` (default: the checked-out one) of the repository at `repository`.
    /// - Throws: ``HistorySourceError`` when it is not a git repository, the branch does not exist or git fails.
    public init(repository: URL, branch: String?) throws {
        self.repository = repository
        let revision = branch ?? "HEAD"
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: repository.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw HistorySourceError("\(repository.path) is not a folder")
        }
        let found: Data
        do {
            found = try GitProcess.output(["rev-parse", "--verify", "--end-of-options", "\(revision)^{commit}"], in: repository)
        } catch let error as HistorySourceError {
            throw HistorySourceError("\(repository.path): '\(revision)' names no commit of a git repository (\(error))")
        }
        guard let tip = String(data: found, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !tip.isEmpty else {
            throw HistorySourceError("\(repository.path): '\(revision)' names no commit")
        }
        self.tip = tip
        name = "git: \(repository.standardizedFileURL.lastPathComponent)\(branch.map { " (\($0))" } ?? "")"
        var lastTree: [String] = []
        var leftOut: [String: String] = [:]
        let tree = try GitProcess.output(["ls-tree", "-r", "-z", "--full-tree", tip], in: repository)
        for entry in tree.split(separator: 0) {
            guard let text = String(data: Data(entry), encoding: .utf8), let tab = text.firstIndex(of: "\t") else { continue }
            let path = String(text[text.index(after: tab)...])
            switch text.prefix(6) {
            case "100644", "100755": lastTree.append(path)
            case "120000": leftOut[path] = "a symbolic link"
            default: leftOut[path] = "a submodule"
            }
        }
        self.leftOut = leftOut
        var lineages = GitLineages(lastTree: lastTree)
        // Newest first, renames only: which last-tree file each older path is.
        let renames = try GitProcess(Self.logArguments(tip, reverse: false, renamesOnly: true), in: repository)
        defer { renames.end() }
        let reader = PipeReader(renames.output)
        var backward = GitLog()
        while let token = try reader.read(upTo: 0) {
            if let commit = try backward.take(String(decoding: token, as: UTF8.self)) { lineages.learnBackward(commit) }
        }
        if let commit = try backward.finish() { lineages.learnBackward(commit) }
        try renames.finish()
        self.lineages = lineages
        log = try GitProcess(Self.logArguments(tip, reverse: true, renamesOnly: false), in: repository)
        logReader = PipeReader(log.output)
        blobs = try GitProcess(["cat-file", "--batch"], in: repository, input: true)
        blobReader = PipeReader(blobs.output)
    }

    private static func logArguments(_ tip: String, reverse: Bool, renamesOnly: Bool) -> [String] {
        ["-c", "core.quotepath=off", "log"] + (reverse ? ["--reverse"] : []) + (renamesOnly ? ["--diff-filter=R"] : [])
            + ["--first-parent", "--diff-merges=first-parent", "--raw", "-z", "-M", "--no-abbrev", "--format=%x01%H%x00%ct%x00%an%x00%ae%x00%s", tip, "--"]
    }

    public func next() throws -> SourceVersion? {
        while pending.isEmpty {
            guard !done else { return nil }
            var commit: GitCommit?
            while commit == nil {
                guard let token = try logReader.read(upTo: 0) else {
                    commit = try parser.finish()
                    done = true
                    try log.finish()
                    break
                }
                commit = try parser.take(String(decoding: token, as: UTF8.self))
            }
            guard let commit else { continue }
            let origin = commit.origin()
            pending = try lineages.forward(commit).reversed().map { version in
                SourceVersion(path: version.file, content: try version.blob.map(blob), time: commit.time, origin: origin)
            }
        }
        return pending.popLast()
    }

    /// A blob's bytes, from `git cat-file --batch`.
    private func blob(_ id: String) throws -> Data {
        try blobs.send(Data((id + "\n").utf8))
        guard let header = try blobReader.read(upTo: UInt8(ascii: "\n")), let line = String(data: header, encoding: .utf8) else {
            throw HistorySourceError("git cat-file ended")
        }
        let fields = line.split(separator: " ")
        guard fields.count == 3, fields[1] == "blob", let size = Int(fields[2]) else { throw HistorySourceError("git cat-file: \(line)") }
        let bytes = try blobReader.read(count: size)
        _ = try blobReader.read(count: 1)  // the newline after the bytes
        return bytes
    }

    public func close() {
        log.end()
        blobs.end()
    }

    deinit { close() }
}

/// A `git` child process of the repository: its output read as it comes, its input written to.
final class GitProcess {
    private let process = Process()
    let output: FileHandle
    private let input: FileHandle?
    private let errors = Pipe()
    private let command: String

    init(_ arguments: [String], in repository: URL, input wanted: Bool = false) throws {
        command = "git " + arguments.filter { !$0.hasPrefix("--format") }.joined(separator: " ")
        let out = Pipe()
        let inPipe = wanted ? Pipe() : nil
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", repository.path] + arguments
        process.standardOutput = out
        process.standardError = errors
        process.standardInput = inPipe ?? FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["LC_ALL"] = "C"
        process.environment = environment
        do {
            try process.run()
        } catch {
            throw HistorySourceError("git could not be run (\(error)): install git")
        }
        output = out.fileHandleForReading
        input = inPipe?.fileHandleForWriting
    }

    func send(_ data: Data) throws {
        try input?.write(contentsOf: data)
    }

    /// Waits for the process once its output was read; throws with what git said when it failed.
    func finish() throws {
        try? input?.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let said = String(decoding: (try? errors.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw HistorySourceError("\(command) failed: \(said.isEmpty ? "exit \(process.terminationStatus)" : said)")
        }
    }

    /// Stops the process if it still runs.
    func end() {
        try? input?.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// The whole output of a short git command.
    static func output(_ arguments: [String], in repository: URL) throws -> Data {
        let git = try GitProcess(arguments, in: repository)
        let data = try git.output.readToEnd() ?? Data()
        try git.finish()
        return data
    }
}
