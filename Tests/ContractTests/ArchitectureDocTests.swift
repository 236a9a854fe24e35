import Foundation
import TestSupport
import Testing

/// `docs/architecture.md` says what the code has: read against the sources and the manifest, so
/// that a renamed type, a folder or table left out, a module called unused that is used, or a
/// dependency rule the imports break shows up here.
@Suite struct ArchitectureDocTests {
    static let pagePath = "docs/architecture.md"
    /// Words of the page that look like type names but are the world's, not the code's.
    static let prose: Set<String> = [
        "VaultSync", "OpenID", "WebSocket", "KiB", "MiB", "PostgreSQL", "HAProxy", "AsyncHTTPClient", "SwiftNIO",
        "ListObjectsV2", "ListMultipartUploads",  // S3 API actions
    ]
    /// Modules every target may import without a rule saying so.
    static let platform: Set<String> = ["Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Dispatch", "Synchronization"]
    /// What a rule's package name stands for among imports.
    static let packageModules: [String: Set<String>] = ["swift-crypto": ["Crypto", "CryptoExtras", "_CryptoExtras"]]

    static func matches(_ pattern: String, in text: String) throws -> [[String]] {
        let regex = try NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { match in
            (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    /// The manifest's targets with the folder each lives in.
    static func targetFolders() throws -> [String: String] {
        let manifest = try Repository.text("Package.swift")
        let regex = try NSRegularExpression(pattern: #"\.(target|testTarget|executableTarget|systemLibrary)\("#)
        let starts = regex.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).compactMap { Range($0.range, in: manifest) }
        var folders: [String: String] = [:]
        for (index, start) in starts.enumerated() {
            // A declaration runs up to the next one.
            let declaration = String(manifest[start.lowerBound..<(index + 1 < starts.count ? starts[index + 1].lowerBound : manifest.endIndex)])
            guard let name = try matches(#"name: "([\w-]+)""#, in: declaration).first?[1] else { continue }
            let conventional = declaration.hasPrefix(".testTarget") ? "Tests/\(name)" : "Sources/\(name)"
            folders[name] = try matches(#"path: "([^"]+)""#, in: declaration).first?[1] ?? conventional
        }
        return folders
    }

    /// The modules the Swift files under `folder` import.
    static func imports(under folder: String) throws -> Set<String> {
        var modules: Set<String> = []
        for file in Repository.files(under: folder, endingWith: ".swift") {
            for match in try matches(#"(?m)^(?:@\w+ )?(?:public |package |internal |private )?import (?:struct |enum |class )?(\w+)"#, in: try Repository.text(file)) {
                modules.insert(match[1])
            }
        }
        return modules
    }

    @Test func everyNameThePageUsesIsDeclaredInTheCode() throws {
        let page = try Repository.text(Self.pagePath)
        var declared = Set(try Self.targetFolders().keys)
        for folder in ["protocol", "server", "client", "Sources", "Tests", "bench"] {
            for file in Repository.files(under: folder, endingWith: ".swift") {
                // A file's and its folders' names: `VaultSyncServer+BlobMigration`, `LocalFiles/`.
                for part in file.dropLast(".swift".count).split(whereSeparator: { "/+".contains($0) }) { declared.insert(String(part)) }
                for match in try Self.matches(#"\b(?:struct|class|enum|protocol|actor|typealias|extension|case|func)\s+([A-Za-z]\w*)"#, in: try Repository.text(file)) {
                    declared.insert(match[1])
                }
            }
        }
        let named = Set(try Self.matches(#"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b"#, in: page).map { $0[0] })
        let unknown = named.subtracting(declared).subtracting(Self.prose)
        #expect(unknown.isEmpty, "\(Self.pagePath) names what the code does not declare: \(unknown.sorted())")
        #expect(named.count > 50, "the page was read: \(named.count) names")
    }

    @Test func everyFolderOfTheServerAndClientLibrariesIsDescribed() throws {
        let page = try Repository.text(Self.pagePath)
        for library in ["server/SyncServer", "client/SyncClient"] {
            let folders = Repository.subfolders(of: library)
            #expect(!folders.isEmpty)
            for folder in folders {
                let described = page.contains("  \(folder)/ ")
                #expect(described, "\(library)/\(folder) is not described in \(Self.pagePath)")
            }
        }
    }

    @Test func everyTableTheMigrationsCreateIsDescribed() throws {
        let page = try Repository.text(Self.pagePath)
        var tables: Set<String> = []
        for file in Repository.files(under: "server/SyncServer/Database", endingWith: ".swift") {
            for match in try Self.matches(#"CREATE TABLE (?:IF NOT EXISTS )?(\w+)"#, in: try Repository.text(file)) { tables.insert(match[1]) }
        }
        #expect(tables.count > 10)
        for table in tables.sorted() {
            let described = page.contains("`\(table)`")
            #expect(described, "the table \(table) is not described in \(Self.pagePath)")
        }
    }

    /// "SyncCore on SyncProtocol only", "VaultCrypto on SyncProtocol and swift-crypto only": what
    /// the page promises of a module's dependencies holds for its imports.
    @Test func theDependencyRulesHoldForTheImports() throws {
        let page = try Repository.text(Self.pagePath)
        let folders = try Self.targetFolders()
        let paragraph = try #require(page.components(separatedBy: "\n\n").first { $0.hasPrefix("Dependency rules:") })
        let rules = try Self.matches(#"(\w+) (?:depends )?on ([\w\- ]+?) only"#, in: paragraph)
        #expect(rules.count >= 3, "the page states its dependency rules")
        for rule in rules {
            let module = rule[1]
            let folder = try #require(folders[module], "the page's rule '\(rule[0])' names \(module), which is no target of \(folders.keys.sorted())")
            let allowed = rule[2].components(separatedBy: " and ").reduce(into: Self.platform) { allowed, name in
                allowed.formUnion(Self.packageModules[name] ?? [name])
            }
            let extra = try Self.imports(under: folder).subtracting(allowed)
            #expect(extra.isEmpty, "\(module) is said to depend on \(rule[2]) only, but imports \(extra.sorted())")
        }
    }

    /// A module the page calls unused is imported by no other target.
    @Test func aModuleCalledUnusedIsNotImported() throws {
        let page = try Repository.text(Self.pagePath)
        let folders = try Self.targetFolders()
        let block = try #require(page.components(separatedBy: "```").dropFirst().first, "the page's Parts block")
        // Each entry starts at a line that begins with its folder; continuation lines are indented.
        var entries: [(folder: String, text: String)] = []
        for line in block.split(separator: "\n") {
            if let first = line.first, first != " " {
                entries.append((String(line.split(separator: " ").first ?? ""), String(line)))
            } else if !entries.isEmpty {
                entries[entries.count - 1].text += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        #expect(entries.count > 8)
        for entry in entries where entry.text.contains("not yet used") || entry.text.contains("unused by") {
            guard let module = folders.first(where: { $0.value == entry.folder })?.key else { continue }
            for (other, folder) in folders where other != module {
                let imported = try Self.imports(under: folder).contains(module)
                #expect(!imported, "\(Self.pagePath) calls \(module) unused, but \(other) imports it")
            }
        }
    }
}
