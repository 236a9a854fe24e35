import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// The server and clients of one user, in one process, over real HTTP and real blob transfers.
@Suite struct TwoDeviceContractTests {
    @Test func twoDevicesPushPullDeleteAndConflict() async throws {
        try await TestServer.withEachBackend { server, backend in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")

            // Laptop creates notes and a binary attachment.
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<2000).map { UInt8($0 % 251) })
            try await laptop.write([("sources/a.md", "---\ntags: [x]\n---\nA", nil), ("thoughts/b.md", "B", nil)])
            #expect(try await laptop.write("attachments/i.png", bytes: png).confirmed.map(\.version) == [1], "\(backend)")

            // Phone starts from nothing: full state, then pull everything.
            let initial = try await phone.allChanges()
            #expect(initial.files.count == 3)
            #expect(Set(initial.files.compactMap(\.updatedByDevice)) == ["laptop"])
            let pull = try await phone.api.pull(PullRequest(files: initial.files.map(\.path)), session: phone.session)
            #expect(pull.downloads.count == 3)
            for download in pull.downloads {
                let bytes = try await phone.download(download.downloadURL)
                #expect(ContentHasher.hash(bytes) == download.contentHash, "\(download.path)")
                #expect(Int64(bytes.count) == download.sizeBytes)
            }
            var phoneCursor = try #require(initial.cursor)

            // Phone edits a.md; laptop sees exactly that change after its own cursor.
            let laptopCursor = try #require(try await laptop.allChanges().cursor)
            try await phone.write("sources/a.md", "---\ntags: [x, y]\n---\nA", base: 1)
            let laptopSees = try await laptop.api.state(laptop.session, cursor: laptopCursor)
            #expect(laptopSees.files.map(\.path.rawValue) == ["sources/a.md"])
            #expect(laptopSees.files.first?.version == 2)
            #expect(laptopSees.files.first?.updatedByDevice == "phone")

            // Both edit b.md from version 1: the first confirm wins, the second is a conflict carrying the winner.
            try await laptop.write("thoughts/b.md", "B from laptop", base: 1)
            let late = try await phone.write("thoughts/b.md", "B from phone", base: 1)
            #expect(late.confirmed.isEmpty)
            let bytes = Data("B from phone".utf8)
            let retry = try await phone.api.push(PushRequest(files: [PushFile(path: try VaultPath("thoughts/b.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: 1)]), session: phone.session)
            let conflict = try #require(retry.conflicts.first)
            #expect(conflict.serverVersion == 2)
            #expect(String(decoding: try await phone.download(try #require(conflict.downloadURL)), as: UTF8.self) == "B from laptop")
            // Resolving: push the merge on top of the server's version.
            try await phone.write("thoughts/b.md", "B from laptop\nB from phone", base: 2)
            #expect(try await laptop.read("thoughts/b.md") == "B from laptop\nB from phone")

            // Laptop deletes a.md at the version it has seen; the phone learns of the tombstone.
            let deleted = try await laptop.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("sources/a.md"), baseVersion: 2)]), session: laptop.session)
            #expect(deleted.deleted.map(\.version) == [3])
            let phoneSees = try await phone.allChanges(after: phoneCursor)
            phoneCursor = try #require(phoneSees.cursor)
            #expect(phoneSees.deleted.map(\.path.rawValue) == ["sources/a.md"])
            #expect(phoneSees.deleted.first?.deletedByDevice == "laptop")
            // A delete from a stale base is a conflict and deletes nothing.
            let stale = try await phone.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("thoughts/b.md"), baseVersion: 2)]), session: phone.session)
            #expect(stale.conflicts.map(\.serverVersion) == [3])
            #expect(try await laptop.read("thoughts/b.md") != nil)
            let devices = try await server.api.devices(accessToken: user.tokens.accessToken)
            #expect(Set(devices.devices.map(\.deviceName)) == ["laptop", "phone"])
        }
    }

    @Test func aSecondUserGetsNothingOfTheFirst() async throws {
        try await TestServer.withEachBackend { server, backend in
            let alice = try await server.newUser().newDevice("alice")
            let bob = try await server.newUser().newDevice("bob")
            try await alice.write([("private/diary.md", "dear diary", nil), ("shared-name.md", "alice's", nil)])

            #expect(try await bob.allChanges().files.isEmpty)
            let pull = try await bob.api.pull(PullRequest(files: [try VaultPath("private/diary.md")]), session: bob.session)
            #expect(pull.downloads.isEmpty)
            #expect(pull.missing.map(\.rawValue) == ["private/diary.md"])
            // Bob cannot learn that the server holds Alice's bytes: his push of the same content needs an upload.
            let bytes = Data("dear diary".utf8)
            let push = try await bob.api.push(PushRequest(files: [PushFile(path: try VaultPath("private/diary.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)]), session: bob.session)
            #expect(push.uploads.first?.uploadRequired == true)
            #expect(push.uploads.first?.newVersion == 1)
            // Bob's delete and his writes to the same name touch only his vault.
            let delete = try await bob.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("shared-name.md"), baseVersion: 1)]), session: bob.session)
            #expect(delete.missing.map(\.rawValue) == ["shared-name.md"])
            try await bob.write("shared-name.md", "bob's")
            #expect(try await alice.read("shared-name.md") == "alice's")
            #expect(try await bob.read("shared-name.md") == "bob's")
            // Bob cannot act through Alice's device, nor list it.
            let asAlice = VaultSession(accessToken: bob.session.accessToken, deviceID: alice.session.deviceID)
            await #expect { try await bob.api.state(asAlice) } throws: { ($0 as? SyncAPIError)?.code == .deviceRequired }
            #expect(try await bob.api.devices(accessToken: bob.session.accessToken).devices.map(\.deviceName) == ["bob"])
            let alicePull = try await alice.api.pull(PullRequest(files: [try VaultPath("private/diary.md")]), session: alice.session)
            let aliceURL = try #require(alicePull.downloads.first?.downloadURL)
            if backend != .s3Presigned {
                // A blob URL of Alice's is useless to Bob without its signature. (An S3 service
                // enforces its own signatures; moto does not check them.)
                var components = URLComponents(url: aliceURL, resolvingAgainstBaseURL: false)!
                components.query = nil
                #expect(try await RawHTTP.send("GET", components.url!, protocolVersion: nil).status == 403)
            }
            if backend == .s3Proxied {
                // Proxied URLs also need the owner's token: none, or Bob's, gets nothing.
                #expect(try await RawHTTP.send("GET", aliceURL, protocolVersion: nil).code == .unauthorized)
                let asBob = try await RawHTTP.send("GET", aliceURL, headers: ["Authorization": "Bearer \(bob.session.accessToken)"], protocolVersion: nil)
                #expect(asBob.status == 403)
                #expect(String(decoding: try await alice.download(aliceURL), as: UTF8.self) == "dear diary")
            }
        }
    }
}
