import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing
import VaultCrypto

/// Merge policies chosen by a synced `.vaultsyncmerge`, through two real engines and a server.
@Suite struct MergePolicyContractTests {
    /// Two linked folders of one user that both hold `files` (synced through the server), of a
    /// plain or an encrypted vault.
    func twoVaults(_ server: TestServer, encrypted: Bool, _ files: [String: String]) async throws -> (TestVault, TestVault) {
        let user = try await server.newUser()
        let (laptop, phone) = try await TestVault.linkTwo(user, encrypted: encrypted)
        for (path, text) in files { try laptop.write(path, text) }
        _ = try await laptop.sync()
        _ = try await phone.sync()
        return (laptop, phone)
    }

    func setModified(_ vault: TestVault, _ path: String, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: vault.root.appendingPathComponent(path).path)
    }

    /// Two devices edit different sentences of one paragraph (one line): both end with one merged
    /// paragraph, no conflict copy, and the merge is a version in history.
    @Test func differentSentencesOfOneParagraphMergeOnBothDevices() async throws {
        try await TestServer.with { server in
            let paragraph = "We meet on Monday. The agenda is short. Bring the draft."
            let (laptop, phone) = try await twoVaults(server, encrypted: false, ["plan.md": "# Plan\n\n\(paragraph)\n"])
            defer { laptop.remove(); phone.remove() }
            try laptop.write("plan.md", "# Plan\n\nWe meet on Tuesday. The agenda is short. Bring the draft.\n")
            try phone.write("plan.md", "# Plan\n\nWe meet on Monday. The agenda is short. Bring the final draft.\n")
            _ = try await laptop.sync()
            let merged = try await phone.sync()
            #expect(merged.merged.map(\.rawValue) == ["plan.md"] && merged.conflicts.isEmpty, "\(merged)")
            _ = try await laptop.sync()
            let expected = "# Plan\n\nWe meet on Tuesday. The agenda is short. Bring the final draft.\n"
            #expect(phone.read("plan.md") == expected && laptop.read("plan.md") == expected)
            #expect(phone.conflictCopies().isEmpty && laptop.conflictCopies().isEmpty)
            let history = try await laptop.engine.history(try VaultPath("plan.md")).versions
            #expect(history.count == 3 && history.first?.contentHash == ContentHasher.hash(Data(expected.utf8)), "the original, the laptop's edit, the merge: \(history)")
        }
    }

    /// A path whose `.vaultsyncmerge` line says `words off` keeps the line merge's answer: the
    /// same paragraph edited on two devices is a conflict copy, as before word merging.
    @Test func wordsOffKeepsTheParagraphAConflictOnThosePaths() async throws {
        try await TestServer.with { server in
            let paragraph = "We meet on Monday. The agenda is short. Bring the draft."
            let (laptop, phone) = try await twoVaults(server, encrypted: false, [".vaultsyncmerge": "legal/ words off\n", "legal/plan.md": "\(paragraph)\n"])
            defer { laptop.remove(); phone.remove() }
            try laptop.write("legal/plan.md", "We meet on Tuesday. The agenda is short. Bring the draft.\n")
            try phone.write("legal/plan.md", "We meet on Monday. The agenda is short. Bring the final draft.\n")
            _ = try await laptop.sync()
            let report = try await phone.sync()
            #expect(report.merged.isEmpty && report.conflicts.map(\.rawValue) == ["legal/plan.md"], "\(report)")
            #expect(phone.conflictCopies().count == 1)
        }
    }

    @Test(arguments: [false, true]) func editorSettingsMergeKeyByKeyWithoutAConflictCopy(encrypted: Bool) async throws {
        try await TestServer.with { server in
            let (laptop, phone) = try await twoVaults(server, encrypted: encrypted, [
                ".vaultsyncmerge": ".obsidian/*.json json\n",
                ".obsidian/app.json": "{\n  \"theme\": \"dark\",\n  \"fontSize\": 14\n}\n",
            ])
            defer { laptop.remove(); phone.remove() }
            try laptop.write(".obsidian/app.json", "{\n  \"theme\": \"light\",\n  \"fontSize\": 14\n}\n")
            try phone.write(".obsidian/app.json", "{\n  \"theme\": \"dark\",\n  \"fontSize\": 16,\n  \"spellcheck\": true\n}\n")
            _ = try await laptop.sync()
            let merged = try await phone.sync()
            #expect(merged.merged.map(\.rawValue) == [".obsidian/app.json"] && merged.conflicts.isEmpty, "\(merged)")
            _ = try await laptop.sync()
            let expected = "{\n  \"theme\": \"light\",\n  \"fontSize\": 16,\n  \"spellcheck\": true\n}\n"
            #expect(phone.read(".obsidian/app.json") == expected)
            #expect(laptop.read(".obsidian/app.json") == expected)
            #expect(phone.conflictCopies().isEmpty && laptop.conflictCopies().isEmpty)

            // The same key changed differently: a conflict copy, as for any unmergeable change.
            try laptop.write(".obsidian/app.json", expected.replacingOccurrences(of: "16", with: "18"))
            try phone.write(".obsidian/app.json", expected.replacingOccurrences(of: "16", with: "12"))
            _ = try await laptop.sync()
            let conflict = try await phone.sync()
            #expect(conflict.conflicts.map(\.rawValue) == [".obsidian/app.json"])
            #expect(conflict.notices.contains { $0.contains("JSON key 'fontSize' changed differently") }, "\(conflict.notices)")
        }
    }

    @Test(arguments: [false, true]) func lastWriterWinsKeepsTheNewerVersionEverywhereAndTheOtherInHistory(encrypted: Bool) async throws {
        try await TestServer.with { server in
            let (laptop, phone) = try await twoVaults(server, encrypted: encrypted, [".vaultsyncmerge": "*.canvas last-writer-wins\n", "board.canvas": "v0"])
            defer { laptop.remove(); phone.remove() }
            // The laptop's edit reaches the server; the phone's edit was made an hour before it.
            try laptop.write("board.canvas", "laptop")
            _ = try await laptop.sync()
            try phone.write("board.canvas", "phone, older")
            try setModified(phone, "board.canvas", server.clock.now.addingTimeInterval(-3600))
            let report = try await phone.sync()
            #expect(report.conflicts.isEmpty && phone.conflictCopies().isEmpty, "\(report)")
            #expect(phone.read("board.canvas") == "laptop")
            let history = try await phone.engine.history(try VaultPath("board.canvas"))
            // Versions: the phone's edit, then the laptop's content made current again on top.
            let older = ContentHasher.hash(Data("phone, older".utf8))
            let kept = try await RawHTTP.send("GET", try #require(history.versions.first { $0.contentHash == older }?.downloadURL))
            #expect(String(decoding: try phone.plaintext(kept.body), as: UTF8.self) == "phone, older", "the older edit stays in history")
            #expect(history.versions.first?.contentHash == ContentHasher.hash(Data("laptop".utf8)))

            // Now the phone's edit is the newer one: it wins on both devices.
            _ = try await laptop.sync()
            try laptop.write("board.canvas", "laptop again")
            _ = try await laptop.sync()
            try phone.write("board.canvas", "phone, newer")
            try setModified(phone, "board.canvas", server.clock.now.addingTimeInterval(3600))
            let newer = try await phone.sync()
            #expect(newer.merged.map(\.rawValue) == ["board.canvas"] && newer.conflicts.isEmpty, "\(newer)")
            _ = try await laptop.sync()
            #expect(laptop.read("board.canvas") == "phone, newer")
            #expect(try await phone.engine.history(try VaultPath("board.canvas")).versions.contains { $0.contentHash == ContentHasher.hash(Data("laptop again".utf8)) })
        }
    }
}

extension TestVault {
    /// Bytes the server keeps, as the folder would hold them: decrypted with the folder's key
    /// when its vault is encrypted.
    func plaintext(_ stored: Data) throws -> Data {
        guard let key = try CredentialStore(stateFolder: root.appendingPathComponent(".vaultsync")).load()?.vaultKey else { return stored }
        return try FileFormat.open(stored, with: try VaultKey(bytes: key))
    }
}
