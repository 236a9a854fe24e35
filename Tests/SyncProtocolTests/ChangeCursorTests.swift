import Foundation
import SyncProtocol
import Testing

/// ``ChangeCursor/later(_:_:)`` as a table: which cursor a device keeps when an answer hands one back.
@Suite struct ChangeCursorTests {
    static func cursor(_ sequence: Int64, _ history: String? = "ab12") -> String {
        ChangeCursor(sequence: sequence, purgeMark: 2, history: history).encoded
    }

    static let cases: [(newer: String?, held: String?, kept: String?, why: String)] = [
        (cursor(21), cursor(14), cursor(21), "an answer ahead of the held cursor moves it"),
        (cursor(14), cursor(21), cursor(21), "an answer committed earlier, handled later, does not move it back"),
        (cursor(21), cursor(21), cursor(21), "the same position"),
        (nil, cursor(14), cursor(14), "an answer without a cursor keeps the held one"),
        (cursor(14), nil, cursor(14), "nothing held yet"),
        (cursor(14, "cd34"), cursor(21), cursor(14, "cd34"), "another history cannot be compared: the answer's"),
        (cursor(14, nil), cursor(21, nil), cursor(21, nil), "two cursors of before history ids compare"),
        ("not a cursor", cursor(21), "not a cursor", "a form this client cannot read: the answer's, as the server sent it"),
        (Data("c1.7".utf8).base64EncodedString(), cursor(21, nil), cursor(21, nil), "the oldest form reads as mark 0, history none"),
    ]

    @Test(arguments: cases) func theLaterIsKept(_ c: (newer: String?, held: String?, kept: String?, why: String)) {
        #expect(ChangeCursor.later(c.newer, c.held) == c.kept, "\(c.why)")
    }

    @Test func aCursorReadsBackAndTextThatIsNotOneDoesNot() {
        let cursor = ChangeCursor(sequence: 12, purgeMark: 3, history: "a1b2c3d4e5f6")
        #expect(ChangeCursor(parsing: cursor.encoded) == cursor)
        for bad in ["", "c3", Data("c3.1.2.xyz".utf8).base64EncodedString(), Data("c2.-1.0".utf8).base64EncodedString(), Data("c9.1".utf8).base64EncodedString()] {
            #expect(ChangeCursor(parsing: bad) == nil, "\(bad)")
        }
    }
}
