import Foundation
import SyncServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// WebDAV passwords over plain HTTP from another machine (issue 53): with `--public-url https://…`
/// the server took Basic credentials in the clear from any address. A real client reaching the
/// server at this machine's own non-loopback address is another machine to it.
@Suite struct WebDAVPlainHTTPTests {
    /// This machine's first IPv4 address that is not loopback, if it has one.
    static let outsideAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }()

    @Test(.enabled(if: outsideAddress != nil, "this machine has no non-loopback IPv4 address"), arguments: [false, true])
    func credentialsInTheClearFromAnotherMachineAreRefusedUnlessAllowed(_ allowed: Bool) async throws {
        let outside = try #require(Self.outsideAddress)
        try await TestServer.with(configure: { configuration in
            configuration.hostname = "0.0.0.0"
            configuration.publicURL = URL(string: "https://notes.example.org")
            configuration.webDAVAllowPlainHTTP = allowed
        }) { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server)
            let port = try #require(server.baseURL.port)
            let authorization = "Basic " + Data("\(user.email):\(dav.password)".utf8).base64EncodedString()
            let fromOutside = try await WebDAVTests.DAVClient.send("PROPFIND", "http://\(outside):\(port)/dav/", headers: ["Authorization": authorization, "Depth": "0"])
            if allowed {
                #expect(fromOutside.status == 207, "allowed by the operator: \(fromOutside.status)")
            } else {
                #expect(fromOutside.status == 403 && WebDAVTests.text(fromOutside).contains("only over TLS"), "\(fromOutside.status) \(WebDAVTests.text(fromOutside))")
            }
            let fromHere = try await dav.propfind("/dav/", depth: "0")
            #expect(fromHere.status == 207, "from this machine (a proxy here): \(fromHere.status)")
        }
    }
}
