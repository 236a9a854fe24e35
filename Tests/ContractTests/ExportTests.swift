import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Whole-vault export and import, across two servers.
@Suite struct ExportTests {
    /// Runs python3 with `arguments`; returns its exit status and output.
    func python(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    func summary(_ manifest: ExportManifest) -> [String: String] {
        Dictionary(uniqueKeysWithValues: manifest.files.map { ($0.path.rawValue, "\($0.contentHash.rawValue) \($0.sizeBytes)") })
    }

    @Test func aVaultRoundTripsThroughExportAndImportOnAnotherServer() async throws {
        let zipA = URL(fileURLWithPath: "/tmp/vaultsync-export-\(UUID().uuidString.prefix(8)).zip")
        let zipB = URL(fileURLWithPath: "/tmp/vaultsync-export-\(UUID().uuidString.prefix(8)).zip")
        defer { try? FileManager.default.removeItem(at: zipA); try? FileManager.default.removeItem(at: zipB) }
        let manifestA = try await TestServer.with { serverA in
            let laptop = try await TestVault.link(try await serverA.newUser(), deviceName: "laptop")
            defer { laptop.remove() }
            try laptop.write("inbox/idea.md", "---\ntags: [a]\n---\nfirst\n")
            try laptop.write("caf\u{E9}/menu.md", "croissant")
            try laptop.write("attachments/big.bin", String(repeating: "0123456789", count: 10_000))
            try laptop.write("gone.md", "deleted before the export")
            try await laptop.sync()
            try laptop.write("inbox/idea.md", "---\ntags: [a, b]\n---\nsecond\n")
            try laptop.delete("gone.md")
            try await laptop.sync()
            let seen = Shared([SyncProgress]())
            let manifest = try await laptop.engine.export(to: zipA) { progress in seen.update { $0.append(progress) } }
            // The download counts its bytes (issue 52): the last report before "finished" has them all.
            let transfers = seen.current.filter { $0.phase == .transferring }
            let last = try #require(transfers.last)
            #expect(last.bytesTotal > 0 && last.bytesDone == last.bytesTotal && last.filesDone == 3, "\(transfers)")
            #expect(transfers.map(\.bytesDone) == transfers.map(\.bytesDone).sorted(), "never goes back")
            #expect(Set(manifest.files.map(\.path.rawValue)) == ["inbox/idea.md", "caf\u{E9}/menu.md", "attachments/big.bin"])
            #expect(manifest.files.first { $0.path.rawValue == "inbox/idea.md" }?.version == 2)
            #expect(manifest.files.allSatisfy { $0.updatedByDevice == "laptop" })
            return manifest
        }
        // Standard tools open it.
        let (status, output) = try python(["-m", "zipfile", "-t", zipA.path])
        #expect(status == 0, "\(output)")
        let (_, listing) = try python(["-c", "import sys, zipfile; print('\\n'.join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))", zipA.path])
        #expect(listing.split(separator: "\n").map(String.init) == ["attachments/big.bin", "caf\u{E9}/menu.md", "inbox/idea.md", "vaultsync-export.json"])

        try await TestServer.with { serverB in
            let desk = try await TestVault.link(try await serverB.newUser(), deviceName: "desk")
            defer { desk.remove() }
            let (imported, report) = try await desk.engine.importArchive(zipA)
            #expect(imported == manifestA)
            #expect(report.pushed.count == 3 && report.status == .idle)
            #expect(desk.read("attachments/big.bin") == String(repeating: "0123456789", count: 10_000))
            let modified = try FileManager.default.attributesOfItem(atPath: desk.root.appendingPathComponent("inbox/idea.md").path)[.modificationDate] as? Date
            let expected = try #require(manifestA.files.first { $0.path.rawValue == "inbox/idea.md" }).updatedAt
            #expect(abs((modified ?? .distantPast).timeIntervalSince(expected)) < 1, "modification times come from the manifest")
            let manifestB = try await desk.engine.export(to: zipB)
            #expect(summary(manifestB) == summary(manifestA), "identical paths, hashes and sizes")
        }
    }

    @Test func importRefusesNonEmptyVaultsAndTamperedArchives() async throws {
        let zip = URL(fileURLWithPath: "/tmp/vaultsync-export-\(UUID().uuidString.prefix(8)).zip")
        let tampered = URL(fileURLWithPath: "/tmp/vaultsync-export-\(UUID().uuidString.prefix(8)).zip")
        defer { try? FileManager.default.removeItem(at: zip); try? FileManager.default.removeItem(at: tampered) }
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let other = try await TestVault.link(try await server.newUser(), deviceName: "other")
            defer { laptop.remove(); other.remove() }
            try laptop.write("a.md", "alpha")
            try await laptop.sync()
            _ = try await laptop.engine.export(to: zip)

            // The same account's vault has files: refused, nothing written.
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { phone.remove() }
            await #expect(throws: ExportError.self) { try await phone.engine.importArchive(zip) }
            #expect(phone.read("a.md") == nil)
            // A folder with files: refused.
            try other.write("mine.md", "mine")
            await #expect(throws: ExportError.self) { try await other.engine.importArchive(zip) }

            // Changed bytes in an entry: the manifest no longer matches; refused before anything is written.
            let script = "import sys, zipfile\nsrc = zipfile.ZipFile(sys.argv[1])\ndst = zipfile.ZipFile(sys.argv[2], 'w')\nfor n in src.namelist():\n    dst.writestr(n, b'evil!' if n == 'a.md' else src.read(n))\ndst.close()\n"
            #expect(try python(["-c", script, zip.path, tampered.path]).0 == 0)
            #expect(throws: ExportArchiveError.self) { try ExportArchive.verify(tampered) }
            try other.delete("mine.md")
            await #expect(throws: ExportArchiveError.self) { try await other.engine.importArchive(tampered) }
            #expect(try other.files().isEmpty)
        }
    }

    /// Zip bombs built from a real export: an entry whose headers claim the manifest's size but
    /// that inflates to 256 MiB, and a manifest of 300 MiB. `vaultsync import` refuses each at
    /// once with a clear message, its memory flat, and writes nothing.
    @Test func importRefusesZipBombsFastWithFlatMemory() async throws {
        let zip = URL(fileURLWithPath: "/tmp/vaultsync-export-\(UUID().uuidString.prefix(8)).zip")
        let bombs = ["entry", "manifest"].map { URL(fileURLWithPath: "/tmp/vaultsync-bomb-\($0)-\(UUID().uuidString.prefix(8)).zip") }
        defer { for file in [zip] + bombs { try? FileManager.default.removeItem(at: file) } }
        try await TestServer.with { server in
            let laptop = try await TestVault.link(try await server.newUser(), deviceName: "laptop")
            let empty = try await TestVault.link(try await server.newUser(), deviceName: "other")
            defer { laptop.remove(); empty.remove() }
            try laptop.write("a.md", "alpha")
            try await laptop.sync()
            _ = try await laptop.engine.export(to: zip)
            let script = #"""
                import struct, sys, zipfile
                src, dst, mode = zipfile.ZipFile(sys.argv[1]), sys.argv[2], sys.argv[3]
                name = "vaultsync-export.json"
                with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
                    if mode == "entry":
                        out.writestr(name, src.read(name))
                        out.writestr("a.md", b"\0" * (256 << 20))
                    else:
                        out.writestr(name, b" " * (300 << 20))
                        out.writestr("a.md", src.read("a.md"))
                if mode == "entry":
                    # Both headers of a.md claim the manifest's 5 bytes; its stream inflates to 256 MiB.
                    data = bytearray(open(dst, "rb").read())
                    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
                        at = 0
                        while (at := data.find(signature, at)) >= 0:
                            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
                            if data[name_at:name_at + 4] == b"a.md":
                                struct.pack_into("<I", data, at + offset, 5)
                            at += 4
                    open(dst, "wb").write(bytes(data))
                """#
            for (bomb, mode) in Swift.zip(bombs, ["entry", "manifest"]) { #expect(try python(["-c", script, zip.path, bomb.path, mode]).0 == 0) }

            let vaultsync = try CLIProcess.executable("vaultsync").path
            for (bomb, said) in Swift.zip(bombs, ["holds more than the 5 bytes the manifest says", "larger than 256 MiB"]) {
                let run = try await CLIProcess.run(
                    "/usr/bin/time", ["-f", "rss-kib=%M seconds=%e", vaultsync, "import", bomb.path, "--vault", empty.root.path])
                #expect(run.exitCode == 1 && run.stderr.contains(said), "\(run)")
                let measured = run.stderr.split(separator: "\n").last { $0.hasPrefix("rss-kib=") } ?? ""
                let fields = Dictionary(uniqueKeysWithValues: measured.split(separator: " ").compactMap { pair -> (String, Double)? in
                    let parts = pair.split(separator: "=")
                    return parts.count == 2 ? (String(parts[0]), Double(parts[1]) ?? .infinity) : nil
                })
                #expect((fields["rss-kib"] ?? .infinity) < 120_000, "memory stays flat: \(measured)")
                #expect((fields["seconds"] ?? .infinity) < 20, "refused at once: \(measured)")
                #expect(try empty.files().isEmpty, "nothing was written")
            }
        }
    }

    @Test func exportsBelongToTheirUserAndTheirURLsAreSigned() async throws {
        try await TestServer.with { server in
            let owner = try await server.newUser().newDevice()
            let stranger = try await server.newUser().newDevice()
            try await owner.write("a.md", "alpha")
            var status = try await owner.api.startExport(owner.session)
            while status.state == .running {
                try await Task.sleep(for: .milliseconds(50))
                status = try await owner.api.exportStatus(status.exportID, session: owner.session)
            }
            #expect(status.state == .ready && status.fileCount == 1)
            let id = status.exportID
            await #expect(throws: SyncAPIError.self) { try await stranger.api.exportStatus(id, session: stranger.session) }
            let url = try #require(status.downloadURL)
            #expect(try await owner.download(url).count == Int(status.sizeBytes ?? -1))
            let forged = URL(string: url.absoluteString.replacingOccurrences(of: "signature=", with: "signature=0"))!
            let answer = try await RawHTTP.send("GET", forged, protocolVersion: nil)
            #expect(answer.status == 403 && answer.code == .invalidSignature)
        }
    }

    /// Export jobs live in the database and archives in the blob store: one instance starts the
    /// job, another answers for it and its archive; a job whose instance stopped is reported.
    @Test func anExportStartedOnOneInstanceIsServedByAnother() async throws {
        try await TestServer.withTwoInstances { first, second in
            let device = try await first.newUser().newDevice()
            try await device.write("a.md", "alpha")
            try await device.write("b.md", "beta")
            let started = try await device.api.startExport(device.session)
            let elsewhere = device.through(second)
            var status = try await elsewhere.api.exportStatus(started.exportID, session: elsewhere.session)
            while status.state == .running {
                try await Task.sleep(for: .milliseconds(50))
                status = try await elsewhere.api.exportStatus(started.exportID, session: elsewhere.session)
            }
            #expect(status.state == .ready && status.fileCount == 2 && status.filesDone == 2, "\(status)")
            let zip = try await elsewhere.download(try #require(status.downloadURL))
            #expect(zip.count == Int(status.sizeBytes ?? -1) && zip.starts(with: [0x50, 0x4B]), "the archive, whichever instance answers")

            // A running job nobody beats for two minutes: its instance died.
            let db = try PostgresConnection(connectionString: first.databaseURL)
            defer { db.close() }
            let orphan = UUID()
            let vault = try #require(try db.query("SELECT vault_id FROM export_jobs WHERE id = $1", [started.exportID]).first?.uuid(0))
            let user = try #require(try db.query("SELECT user_id FROM export_jobs WHERE id = $1", [started.exportID]).first?.uuid(0))
            try db.query(
                "INSERT INTO export_jobs (id, user_id, vault_id, change_seq, created_at, heartbeat_at, file_count, state) VALUES ($1, $2, $3, 0, $4, $4, 5, 'running')",
                [orphan, user, vault, first.clock.now])
            #expect(try await elsewhere.api.exportStatus(orphan, session: elsewhere.session).state == .running)
            first.clock.advance(by: 121)  // one clock for both instances
            let died = try await elsewhere.api.exportStatus(orphan, session: elsewhere.session)
            #expect(died.state == .failed && died.error?.contains("stopped") == true, "\(died)")

            // A day on, the archive's job is gone and the purge collects its bytes.
            let archiveKeys = try await first.storedBlobs().count
            first.clock.advance(by: 24 * 3600 + 1)
            let report = try await first.purge()
            let left = try await first.storedBlobs().count
            #expect(report.blobs == 1 && left == archiveKeys - 1, "\(report)")
            #expect(try db.query("SELECT 1 FROM export_jobs WHERE id = $1", [started.exportID]).isEmpty, "the job is forgotten")
        }
    }

    /// `GET /vault/export`, the seed's form, called as a seed client would: poll until a download URL.
    @Test func getVaultExportStartsReusesAndRenewsTheExport() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("a.md", "alpha")
            let url = server.baseURL.appendingPathComponent("vault/export")
            let headers = RawHTTP.vaultHeaders(device.session.accessToken, device: device.session.deviceID)
            func get() async throws -> (Int, ExportStatus) {
                let answer = try await RawHTTP.send("GET", url, headers: headers)
                return (answer.status, try WireCoding.decoder().decode(ExportStatus.self, from: answer.body))
            }
            var (code, status) = try await get()
            let first = status.exportID
            while status.state == .running {
                #expect(code == 202)
                try await Task.sleep(for: .milliseconds(50))
                (code, status) = try await get()
                #expect(status.exportID == first, "polling returns the running export, not a new one")
            }
            #expect(code == 200 && status.state == .ready && status.fileCount == 1)
            let download = try #require(status.downloadURL)
            #expect(try await device.download(download).count == Int(status.sizeBytes ?? -1))
            #expect(try await get().1.exportID == first, "an unchanged vault gets the same archive again")
            try await device.write("b.md", "beta")
            let renewed = try await get().1
            #expect(renewed.exportID != first && renewed.fileCount == 2, "after a change, a new export that includes it")
        }
    }

    /// Exports cannot pile up: requests while one runs get the running one (also many at once), an
    /// unchanged vault gets its archive again, and a newer archive replaces the vault's older one,
    /// whose bytes go at once.
    /// (Every POST used to store another archive: 15 calls, 15 archives.)
    @Test func aVaultKeepsOneRunningExportAndOneArchive() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write((0..<200).map { (path: "notes/n\($0).md", content: "note \($0)", base: nil) })
            let started = try await withThrowingTaskGroup(of: UUID.self) { group in
                for _ in 0..<8 { group.addTask { try await device.api.startExport(device.session).exportID } }
                return try await group.reduce(into: Set<UUID>()) { $0.insert($1) }
            }
            #expect(started.count == 1, "one job for eight requests: \(started)")
            func finished(_ id: UUID) async throws -> ExportStatus {
                var status = try await device.api.exportStatus(id, session: device.session)
                while status.state == .running {
                    try await Task.sleep(for: .milliseconds(50))
                    status = try await device.api.exportStatus(id, session: device.session)
                }
                return status
            }
            let first = try await finished(try #require(started.first))
            #expect(first.state == .ready)
            #expect(try await device.api.startExport(device.session).exportID == first.exportID, "an unchanged vault gets the same archive")

            try await device.write("late.md", "after the first export")
            let second = try await finished(try await device.api.startExport(device.session).exportID)
            #expect(second.exportID != first.exportID && second.fileCount == 201)
            await #expect(throws: SyncAPIError.self, "the older archive's job is gone") { try await device.api.exportStatus(first.exportID, session: device.session) }
            // The older archive's bytes went with it, not at the next purge (they counted until then).
            let stored = try await server.storedBlobs().count
            #expect(stored == 202, "200 notes, late.md and one archive: \(stored)")
            #expect(try await server.purge().blobs == 0, "nothing left for the purge")
            #expect(try await device.download(try #require(second.downloadURL)).count == Int(second.sizeBytes ?? -1), "the newer archive stays")
        }
    }

    /// Export jobs run under the service lifecycle: a graceful shutdown ends a running job (finished
    /// or cancelled) before the database pool and I/O threads close, never after.
    @Test func shutdownDuringAnExportEndsTheJobFirst() async throws {
        let capture = LogCapture()
        try await TestServer.with(logger: capture.logger()) { server in
            let device = try await server.newUser().newDevice()
            try await device.write((0..<300).map { (path: "notes/n\($0).md", content: "note \($0)", base: nil) })
            _ = try await device.api.startExport(device.session)
            // Returning shuts the server down at once, while the archive is being written.
        }
        let log = capture.text
        #expect(log.contains("export ready") || log.contains("export cancelled by shutdown"), "the job ended before shutdown finished:\n\(log.split(separator: "\n").filter { $0.contains("export") }.joined(separator: "\n"))")
        #expect(!log.contains("export failed") && !log.contains("ThreadPoolInactive") && !log.contains("pool is closed"))
    }
}
