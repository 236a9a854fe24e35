import Foundation
import SyncClient
import SyncCore
import SyncProtocol
import Testing

@Suite struct LocalScannerTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-scan-\(UUID().uuidString)")

    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test func findsValidFilesAndReportsTheRest() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("a.md", "alpha")
        try write("dir/sub/b.md", "beta")
        try write(".vaultsync/sync.db", "state")
        try write("dir/.DS_Store", "litter")
        try write("build/out.md", "ignored by the file")
        try write(".vaultsyncignore", "build/\n")
        try write("what?.md", "bad name")
        try write("cafe\u{301}.md", "nfd name")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.md").path, withDestinationPath: "a.md")
        let scan = try LocalScanner(root: root, ignore: LocalScanner.rules(for: root)).scan(cache: [:])
        #expect(Set(scan.files.keys.map(\.rawValue)) == ["a.md", "dir/sub/b.md", ".vaultsyncignore", "caf\u{E9}.md"])
        #expect(scan.files[try VaultPath("a.md")]?.hash == ContentHasher.hash(Array("alpha".utf8)))
        #expect(scan.file(try VaultPath("caf\u{E9}.md"))?.diskPath == "cafe\u{301}.md")
        #expect(scan.invalid["what?.md"] == .invalid(.forbiddenCharacter("what?.md", character: "?")))
        #expect(scan.skippedLinks == ["link.md"])
        // A file's stat is found by the name it has on disk, and by no other spelling.
        let nfd = try #require(scan.stat(atDisk: "cafe\u{301}.md"))
        #expect(nfd.hash == ContentHasher.hash(Array("nfd name".utf8)) && nfd.sizeBytes == 8 && nfd.inode != 0)
        #expect(scan.stat(atDisk: "caf\u{E9}.md") == nil)
        #expect(scan.stat(of: try VaultPath("caf\u{E9}.md")) == nfd)
        #expect(scan.stat(atDisk: "what?.md") == nil && scan.stat(atDisk: "missing.md") == nil)
        #expect(scan.statCache.paths.map { Array($0.utf8) } == [".vaultsyncignore", "a.md", "cafe\u{301}.md", "dir/sub/b.md"].map { Array($0.utf8) })
    }

    /// A folder holding `.vaultsync/` is a vault of its own: neither a whole scan nor a scan of
    /// paths named inside it (a watcher's) reads its files; each names the folder once.
    @Test func aLinkedFolderInsideIsNeverEntered() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("a.md", "outer")
        try write("projects/sub/.vaultsync/sync.db", "the other vault's state")
        try write("projects/sub/secret.md", "the other vault's note")
        try write("projects/sub/deeper/more.md", "more")
        try write("projects/plan.md", "outer's plan")
        let scanner = LocalScanner(root: root, ignore: IgnoreRules())
        let whole = try scanner.scan(cache: [:])
        #expect(Set(whole.files.keys.map(\.rawValue)) == ["a.md", "projects/plan.md"])
        #expect(whole.nestedVaults == ["projects/sub"])
        let named = scanner.scan(paths: ["projects/sub/secret.md", "projects/sub/deeper/more.md", "projects/sub", "projects/plan.md"], cache: [:])
        #expect(Set(named.files.keys.map(\.rawValue)) == ["projects/plan.md"])
        #expect(named.nestedVaults == ["projects/sub"])
        let rules = IgnoreRules().ignoringFolders(whole.nestedVaults)
        #expect(rules.isIgnored("projects/sub/secret.md") && rules.isIgnored("projects/sub", isFolder: true) && !rules.isIgnored("projects/subway.md"))
    }

    @Test func theStatCacheSkipsRehashingUnchangedFiles() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        for i in 0..<20 { try write("n\(i).md", "note \(i)") }
        let scanner = LocalScanner(root: root, ignore: IgnoreRules())
        let first = try scanner.scan(cache: [:])
        #expect(first.rehashed.count == 20)
        let second = try scanner.scan(cache: first.statCache)
        #expect(second.rehashed.isEmpty)
        #expect(second.localFiles == first.localFiles)
        // Changing one file (even to the same size) re-hashes just that one.
        try write("n3.md", "NOTE 3")
        try FileManager.default.removeItem(at: root.appendingPathComponent("n4.md"))
        let third = try scanner.scan(cache: second.statCache)
        #expect(third.rehashed == ["n3.md"])
        #expect(third.removedFromCache == ["n4.md"])
        #expect(third.files[try VaultPath("n3.md")]?.hash == ContentHasher.hash(Array("NOTE 3".utf8)))
    }

    @Test func largeFilesHashStreaming() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: root.appendingPathComponent("big.bin"))
        #expect(try FileHashing.hash(fileAt: root.appendingPathComponent("big.bin").path) == ContentHasher.hash(bytes))
    }
}
