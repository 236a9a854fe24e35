import HTTPTypes
@testable import SyncServer
import Testing

/// ``RequesterMiddleware`` as a table: whose turn at the database pool a request takes.
@Suite struct RequesterMiddlewareTests {
    static func headers(_ fields: [(HTTPField.Name, String)]) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in fields { headers[name] = value }
        return headers
    }

    static let a = headers([(.authorization, "Bearer token-a")])
    static let b = headers([(.authorization, "Bearer token-b")])
    static let cookie = headers([(.cookie, "vs_session=one")])
    static let none = headers([])

    /// Two requests, and whether they share a requester.
    static let cases: [(first: (HTTPFields, String?), second: (HTTPFields, String?), same: Bool)] = [
        ((a, "10.0.0.1"), (a, "10.0.0.2"), true),  // one device moving between networks
        ((a, "10.0.0.1"), (b, "10.0.0.1"), false),  // two devices behind one NAT
        ((cookie, "10.0.0.1"), (cookie, "10.0.0.9"), true),
        ((cookie, "10.0.0.1"), (a, "10.0.0.1"), false),
        ((none, "10.0.0.1"), (none, "10.0.0.1"), true),
        ((none, "10.0.0.1"), (none, "10.0.0.2"), false),
        ((none, "10.0.0.1"), (a, "10.0.0.1"), false),  // a signed-out request does not take a device's turn
    ]

    @Test(arguments: cases) func requester(_ c: (first: (HTTPFields, String?), second: (HTTPFields, String?), same: Bool)) throws {
        let first = try #require(RequesterMiddleware.requester(c.first.0, address: c.first.1))
        let second = try #require(RequesterMiddleware.requester(c.second.0, address: c.second.1))
        #expect((first == second) == c.same)
    }

    @Test func aRequestWithNeitherCredentialsNorAddressIsNoOneInParticular() {
        #expect(RequesterMiddleware.requester(Self.none, address: nil) == nil)
    }
}
