import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// The black-box check of issue 11: an encrypted vault whose names, frontmatter, bodies and
/// attachments carry unique markers is synced, merged, conflicted, deleted from and exported
/// through a real `vaultsync-server` (embedded Postgres, file store, debug log) by real `vaultsync`
/// processes; then no marker, nor its base64, is anywhere in the server's data folder (the
/// Postgres cluster, its WAL, the blobs), its log, or the server's export archive.
@Suite(.serialized) struct EncryptedVaultLeakTests: CLISuite {
    @Test func noMarkerReachesTheServersStorageLogOrExport() async throws {
        try await HeavyTests.oneAtATime {
            let data = try ServerProcess.newDataDirectory()
            let laptop = newFolder(), phone = newFolder(), unpacked = newFolder()
            defer { for folder in [laptop, phone, unpacked] { try? FileManager.default.removeItem(at: folder) } }
            let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let (name, folder, title, body, binary) = ("namemark\(id.prefix(20))", "foldermark\(id.suffix(20))", "titlemark\(id)", "bodymark\(id)", "binmark\(id)")
            let markers = [name, folder, title, body, binary]
            let email = "leak-\(id.prefix(8))@example.com"
            let environment = ["VAULTSYNC_PASSWORD": Self.password, "VAULTSYNC_PASSPHRASE": "a long vault passphrase"]
            func run(_ arguments: [String]) async throws -> CLIResult {
                let result = try await CLIProcess.run("vaultsync", arguments, environment: environment)
                #expect(result.exitCode == 0, "\(arguments): \(result)")
                return result
            }

            let server = try await ServerProcess.start(dataDirectory: data, arguments: ["--log-level", "debug"])
            let ended: CLIResult
            let archive = unpacked.appendingPathComponent("server-export.zip")
            do {
                let link = ["--server", server.baseURL.absoluteString, "--email", email]
                let note = "\(folder)/\(name).md"
                try FileManager.default.createDirectory(at: laptop.appendingPathComponent(folder), withIntermediateDirectories: true)
                try Data("---\ntitle: \(title)\n---\nfirst \(body)\nsecond line\nthird line\n".utf8).write(to: laptop.appendingPathComponent(note))
                try (Data((0..<4096).map { UInt8($0 % 251) }) + Data(binary.utf8) + Data(count: 70_000)).write(to: laptop.appendingPathComponent("\(name).bin"))
                _ = try await run(["init", laptop.path, "--create-account", "--encrypt"] + link)
                _ = try await run(["init", phone.path] + link)
                // A merge (frontmatter), a conflict recorded on the server, history, a deletion.
                try Data("---\ntitle: \(title) 2\n---\nfirst \(body)\nsecond line\nthird line\n".utf8).write(to: laptop.appendingPathComponent(note))
                try Data("---\ntitle: \(title)\n---\nfirst \(body) from the phone\nsecond line\nthird line\n".utf8).write(to: phone.appendingPathComponent(note))
                _ = try await run(["sync", laptop.path])
                _ = try await run(["sync", phone.path])
                try Data("first \(body) laptop\n".utf8).write(to: laptop.appendingPathComponent("\(name) 2.md"))
                try Data("first \(body) phone\n".utf8).write(to: phone.appendingPathComponent("\(name) 2.md"))
                _ = try await run(["sync", laptop.path])
                let conflicted = try await run(["sync", phone.path, "--json"])
                #expect((try conflicted.json()["conflicts"] as? [String]) == ["\(name) 2.md"], "\(conflicted)")
                _ = try await run(["history", note, "--vault", laptop.path])
                try FileManager.default.removeItem(at: laptop.appendingPathComponent("\(name).bin"))
                _ = try await run(["sync", laptop.path])

                // The server's own export of the vault, as its owner (or an operator) gets it.
                let api = SyncAPI(baseURL: server.baseURL)
                let tokens = try await api.login(email: email, password: Self.password)
                let device = try await api.registerDevice(RegisterDeviceRequest(deviceName: "auditor", platform: "linux"), accessToken: tokens.accessToken)
                let session = VaultSession(accessToken: tokens.accessToken, deviceID: device.deviceID)
                var export = try await api.startExport(session)
                for _ in 0..<600 where export.state == .running {
                    try await Task.sleep(for: .milliseconds(100))
                    export = try await api.exportStatus(export.exportID, session: session)
                }
                let downloaded = try await api.downloadBlobToFile(from: try #require(export.downloadURL), session: session)
                try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
                try FileManager.default.moveItem(at: downloaded, to: archive)
                let unzip = try await CLIProcess.run("/usr/bin/env", ["python3", "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", archive.path, unpacked.appendingPathComponent("entries").path])
                #expect(unzip.exitCode == 0, "\(unzip)")

                // Every page of the web app about the vault: counts, sizes and times, never a name or a word.
                try await WebClient.with(server.baseURL) { web in
                    #expect(try await web.signIn(email: email, password: Self.password).status == 303)
                    let home = try await web.get("/app/")
                    let base = try #require(home.body.range(of: "href=\"/app/vaults/").map { "/app/vaults/" + home.body[$0.upperBound...].prefix { $0 != "/" } + "/" })
                    var pages = [home]
                    for path in ["files", "activity", "deleted", "conflicts", "export"] { pages.append(try await web.get(base + path)) }
                    for path in ["/app/storage", "/app/devices"] { pages.append(try await web.get(path)) }
                    let conflicts = pages[4].body.components(separatedBy: "conflict?id=").dropFirst().map { String($0.prefix { $0 != "\"" }) }
                    #expect(conflicts.count == 1, "the phone's conflict is listed: \(pages[4].body)")
                    for id in conflicts { pages.append(try await web.get(base + "conflict?id=" + id)) }
                    #expect(pages.allSatisfy { $0.status == 200 }, "\(pages.map(\.status))")
                    #expect(pages[1].body.contains("holds only ciphertext") && pages[2].body.contains("(an encrypted name)"), "\(pages[1].body)")
                    for page in pages {
                        for marker in markers where page.body.contains(marker) { Issue.record("the web app shows '\(marker)': \(page.body)") }
                    }
                }
            } catch {
                _ = try? await server.stop()
                throw error
            }
            ended = try await server.stop()  // the cluster checkpoints: everything is on disk

            let log = ended.stdout + ended.stderr
            #expect(log.contains("POST /vault/push") || log.contains("/vault/push"), "the debug log records requests: \(log.suffix(2000))")
            let needles = markers.flatMap { [Data($0.utf8)] + Self.base64Cores(of: $0) }
            var scanned = 0
            var controls = 0
            for root in [data, unpacked] {
                for file in Self.regularFiles(under: root) {
                    guard let bytes = try? Data(contentsOf: file, options: .alwaysMapped) else { continue }
                    scanned += 1
                    if bytes.range(of: Data(email.utf8)) != nil { controls += 1 }
                    for needle in needles where bytes.range(of: needle) != nil {
                        Issue.record("\(file.path) holds '\(String(decoding: needle, as: UTF8.self))'")
                    }
                }
            }
            for needle in needles where log.utf8.contains(needle) { Issue.record("the server's log holds '\(String(decoding: needle, as: UTF8.self))'") }
            #expect(scanned > 100, "the cluster, the blobs and the export were read: \(scanned) files")
            #expect(controls > 0, "the scan sees what Postgres stores: the account's email is found")
            #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent("entries/vaultsync-export.json").path))
        }
    }

    /// The base64 forms of `marker` whatever its offset in the encoded bytes: for each of the
    /// three alignments, the characters not touched by the bytes around it.
    static func base64Cores(of marker: String) -> [Data] {
        (0..<3).map { offset in
            let encoded = (Data(repeating: 0x20, count: offset) + Data(marker.utf8)).base64EncodedString()
            return Data(encoded.dropFirst(offset == 0 ? 0 : 4).dropLast(4).utf8)
        }
    }

    static func regularFiles(under root: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }
}

extension String.UTF8View {
    func contains(_ needle: Data) -> Bool { Data(self).range(of: needle) != nil }
}
