/// Hand-checked word merges: each case's expected result was written by a person reading the
/// three texts, before the merge was run (`!` after `m` for a conflict). Blocks of five lines:
/// `= what it shows`, then `b` base, `l` one device, `r` the other, `m` the merge. Each is the
/// paragraph of a note between a heading and a last line (see ``WordMergeCaseTests``).
enum WordMergeCases {
    static let text = #"""
        = different sentences: the middle and the last
        b We meet at nine. The room is booked. Bring your laptop.
        l We meet at nine. The big room is booked. Bring your laptop.
        r We meet at nine. The room is booked. Bring your charger.
        m We meet at nine. The big room is booked. Bring your charger.

        = different sentences: the first and the middle
        b We meet at nine. The room is booked. Bring your laptop.
        l We meet at ten. The room is booked. Bring your laptop.
        r We meet at nine. The room is reserved. Bring your laptop.
        m We meet at ten. The room is reserved. Bring your laptop.

        = different sentences: the first and the last
        b We meet at nine. The room is booked. Bring your laptop.
        l They meet at nine. The room is booked. Bring your laptop.
        r We meet at nine. The room is booked. Bring your own laptop.
        m They meet at nine. The room is booked. Bring your own laptop.

        = a word each, in different sentences, longer text
        b The report covers the first quarter. Sales grew in every region. Costs stayed flat. The team thanks everyone who helped.
        l The report covers the second quarter. Sales grew in every region. Costs stayed flat. The team thanks everyone who helped.
        r The report covers the first quarter. Sales grew in every region. Costs fell. The team thanks everyone who helped.
        m The report covers the second quarter. Sales grew in every region. Costs fell. The team thanks everyone who helped.

        = three sentences changed, two on one side
        b One. Two. Three. Four.
        l Uno. Two. Three. Four.
        r One. Two. Drei. Vier.
        m Uno. Two. Drei. Vier.

        = a sentence added at the start and a word changed at the end
        b The plan is simple. We ship on Monday.
        l Good news. The plan is simple. We ship on Monday.
        r The plan is simple. We ship on Friday.
        m Good news. The plan is simple. We ship on Friday.

        = a sentence added at the end and a word changed at the start
        b The plan is simple. We ship on Monday.
        l Our plan is simple. We ship on Monday.
        r The plan is simple. We ship on Monday. Nobody works late.
        m Our plan is simple. We ship on Monday. Nobody works late.

        = sentences added in two different places
        b Alpha is first. Beta is second. Gamma is third.
        l Alpha is first. A note on alpha. Beta is second. Gamma is third.
        r Alpha is first. Beta is second. A note on beta. Gamma is third.
        m Alpha is first. A note on alpha. Beta is second. A note on beta. Gamma is third.

        = sentences added in the same place: a conflict
        b Alpha is first. Beta is second.
        l Alpha is first. One more. Beta is second.
        r Alpha is first. Another one. Beta is second.
        m !

        = a sentence deleted and another edited
        b Alpha is first. Beta is second. Gamma is third.
        l Alpha is first. Gamma is third.
        r Alpha is first. Beta is second. Gamma is the third.
        m Alpha is first. Gamma is the third.

        = a sentence deleted on one side, edited on the other: a conflict
        b Alpha is first. Beta is second. Gamma is third.
        l Alpha is first. Gamma is third.
        r Alpha is first. Beta is the second. Gamma is third.
        m !

        = the same sentence deleted on both sides, a word changed elsewhere
        b Alpha is first. Beta is second. Gamma is third.
        l Alpha is first. Gamma is third.
        r Alpha is first. Gamma is last.
        m Alpha is first. Gamma is last.

        = both sides delete different sentences
        b Alpha is first. Beta is second. Gamma is third. Delta is fourth.
        l Beta is second. Gamma is third. Delta is fourth.
        r Alpha is first. Beta is second. Gamma is third.
        m Beta is second. Gamma is third.

        = both sides delete neighbouring sentences: a conflict (nothing unchanged between)
        b Alpha is first. Beta is second. Gamma is third.
        l Alpha is first. Gamma is third.
        r Alpha is first. Beta is second.
        m !

        = the same change on both sides is taken once
        b The meeting is on Monday.
        l The meeting is on Tuesday.
        r The meeting is on Tuesday.
        m The meeting is on Tuesday.

        = the same change on both sides, and another on one
        b The meeting is on Monday. Bring snacks.
        l The meeting is on Tuesday. Bring snacks.
        r The meeting is on Tuesday. Bring drinks.
        m The meeting is on Tuesday. Bring drinks.

        = the same word changed differently: a conflict
        b The meeting is on Monday.
        l The meeting is on Tuesday.
        r The meeting is on Friday.
        m !

        = neighbouring words, one space between: a conflict
        b The quick brown fox.
        l The slow brown fox.
        r The quick red fox.
        m !

        = words two apart merge
        b The quick brown fox jumps.
        l The slow brown fox jumps.
        r The quick brown cat jumps.
        m The slow brown cat jumps.

        = a word and the full stop right after it: a conflict
        b We ship on Monday.
        l We ship on Tuesday.
        r We ship on Monday!
        m !

        = the full stop of a sentence and the next sentence's first word: a conflict (only a space between)
        b We ship soon. Monday is the day.
        l We ship soon! Monday is the day.
        r We ship soon. Tuesday is the day.
        m !

        = the full stop of a sentence and the next sentence's second word: merged
        b We ship soon. Monday is the day.
        l We ship soon! Monday is the day.
        r We ship soon. Monday was the day.
        m We ship soon! Monday was the day.

        = a word inserted by each side in different places
        b Cats like warm places.
        l Most cats like warm places.
        r Cats like warm, quiet places.
        m Most cats like warm, quiet places.

        = a word inserted by each side at the same place: a conflict
        b Cats like warm places.
        l Cats like very warm places.
        r Cats like quite warm places.
        m !

        = a word deleted and another changed far away
        b Please read the whole long document before the meeting.
        l Please read the long document before the meeting.
        r Please read the whole long document before the call.
        m Please read the long document before the call.

        = a word deleted on one side and changed on the other: a conflict
        b Please read the whole document.
        l Please read the document.
        r Please read the entire document.
        m !

        = a clause rephrased and a word fixed in another sentence
        b The server keeps every version. Old versions are removed after ninety days.
        l The server keeps each version it receives. Old versions are removed after ninety days.
        r The server keeps every version. Old versions are deleted after ninety days.
        m The server keeps each version it receives. Old versions are deleted after ninety days.

        = a clause rephrased on both sides, overlapping: a conflict
        b The server keeps every version it receives.
        l The server keeps all the versions it receives.
        r The server keeps every single version it gets.
        m !

        = a typo fixed on each side
        b Teh server keeps every verison.
        l The server keeps every verison.
        r Teh server keeps every version.
        m The server keeps every version.

        = capitalisation changed on one side, a word on the other
        b the plan is simple and the date is fixed.
        l The plan is simple and the date is fixed.
        r the plan is simple and the date is set.
        m The plan is simple and the date is set.

        = numbers are words
        b Version 3 ships in 2026 with 12 fixes.
        l Version 4 ships in 2026 with 12 fixes.
        r Version 3 ships in 2026 with 15 fixes.
        m Version 4 ships in 2026 with 15 fixes.

        = a number and the word beside it: a conflict
        b It costs 12 euros.
        l It costs 15 euros.
        r It costs 12 dollars.
        m !

        = bold added around a word, another word changed
        b Read the guide before you start the server.
        l Read the **guide** before you start the server.
        r Read the guide before you start the client.
        m Read the **guide** before you start the client.

        = a link's text and another sentence
        b See [the guide](guide.md) for details. It is short.
        l See [the setup guide](guide.md) for details. It is short.
        r See [the guide](guide.md) for details. It is very short.
        m See [the setup guide](guide.md) for details. It is very short.

        = a link's target and its text: merged (the bracket between)
        b See [the guide](guide.md) for details.
        l See [the new guide](guide.md) for details.
        r See [the guide](setup.md) for details.
        m See [the new guide](setup.md) for details.

        = a wiki link and a word after it
        b Linked from [[Daily note]] this morning.
        l Linked from [[Weekly note]] this morning.
        r Linked from [[Daily note]] this evening.
        m Linked from [[Weekly note]] this evening.

        = inline code and a word elsewhere
        b Run `vaultsync sync` once a day, then check the log.
        l Run `vaultsync sync --json` once a day, then check the log.
        r Run `vaultsync sync` once a day, then read the log.
        m Run `vaultsync sync --json` once a day, then read the log.

        = a tag added and a word changed
        b Ideas for the garden and the shed.
        l Ideas for the garden and the shed. #home
        r Ideas for the garden and the new shed.
        m Ideas for the garden and the new shed. #home

        = a list item's words
        b - Buy milk, bread and eggs for the weekend.
        l - Buy milk, bread and eggs for Sunday.
        r - Buy oat milk, bread and eggs for the weekend.
        m - Buy oat milk, bread and eggs for Sunday.

        = a task checked on one side, its words changed on the other
        b - [ ] Call the bank about the loan.
        l - [x] Call the bank about the loan.
        r - [ ] Call the bank about the mortgage.
        m - [x] Call the bank about the mortgage.

        = a quote's words
        b > The best way out is always through.
        l > The best way out is always through it.
        r > The only way out is always through.
        m > The only way out is always through it.

        = a heading's words on both sides
        b ## Notes from the weekly meeting
        l ## Notes from the monthly meeting
        r ## Draft notes from the weekly meeting
        m ## Draft notes from the monthly meeting

        = German, with umlauts
        b Wir treffen uns am Montag. Die Küche ist geschlossen.
        l Wir treffen uns am Dienstag. Die Küche ist geschlossen.
        r Wir treffen uns am Montag. Die Küche ist geöffnet.
        m Wir treffen uns am Dienstag. Die Küche ist geöffnet.

        = French, with accents and apostrophes
        b L'équipe se réunit lundi. Le café est prêt.
        l L'équipe se réunit mardi. Le café est prêt.
        r L'équipe se réunit lundi. Le thé est prêt.
        m L'équipe se réunit mardi. Le thé est prêt.

        = a word and a letter with a combining accent kept whole
        b The cafe\u{301} opens at eight. Bring cash.
        l The cafe\u{301} opens at nine. Bring cash.
        r The cafe\u{301} opens at eight. Bring cards.
        m The cafe\u{301} opens at nine. Bring cards.

        = Japanese: each character a word
        b 今日は晴れです。明日は雨です。
        l 今日は曇りです。明日は雨です。
        r 今日は晴れです。明日は雪です。
        m 今日は曇りです。明日は雪です。

        = Chinese: neighbouring characters changed: a conflict
        b 我们明天开会。
        l 我们后天开会。
        r 我们明早开会。
        m !

        = Chinese: characters apart
        b 我们明天在北京开会。
        l 他们明天在北京开会。
        r 我们明天在上海开会。
        m 他们明天在上海开会。

        = emoji kept whole beside changed words
        b Party at noon 🎉 bring a friend.
        l Party at one 🎉 bring a friend.
        r Party at noon 🎉 bring two friends.
        m Party at one 🎉 bring two friends.

        = an emoji replaced with a skin tone, a word elsewhere
        b Great work 👍 on the release today.
        l Great work 👍🏽 on the release today.
        r Great work 👍 on the release yesterday.
        m Great work 👍🏽 on the release yesterday.

        = a space run changed on one side, a word on the other
        b Name:  Alice. Role: admin.
        l Name: Alice. Role: admin.
        r Name:  Alice. Role: owner.
        m Name: Alice. Role: owner.

        = a long paragraph with changes far apart
        b VaultSync keeps a folder of notes in sync across devices. It never loses an edit. A file changed on two devices is merged when the changes are apart, and kept as a conflict otherwise. Conflicts are listed on every device and in the web app.
        l VaultSync keeps a folder of Markdown notes in sync across devices. It never loses an edit. A file changed on two devices is merged when the changes are apart, and kept as a conflict otherwise. Conflicts are listed on every device and in the web app.
        r VaultSync keeps a folder of notes in sync across devices. It never loses an edit. A file changed on two devices is merged when the changes are apart, and kept as a conflict otherwise. Conflicts are listed on every device, in the CLI and in the web app.
        m VaultSync keeps a folder of Markdown notes in sync across devices. It never loses an edit. A file changed on two devices is merged when the changes are apart, and kept as a conflict otherwise. Conflicts are listed on every device, in the CLI and in the web app.

        = a long paragraph: one side rewrote a sentence the other fixed a word in: a conflict
        b VaultSync keeps a folder of notes in sync. It never loses an edit. Conflicts are listed everywhere.
        l VaultSync keeps a folder of notes in sync. Not a single edit is ever lost. Conflicts are listed everywhere.
        r VaultSync keeps a folder of notes in sync. It never loses any edit. Conflicts are listed everywhere.
        m !

        = every sentence changed on one side, nothing on the other
        b One. Two. Three.
        l Uno. Dos. Tres.
        r One. Two. Three.
        m Uno. Dos. Tres.

        = a side that cleared the paragraph, the other edited it: a conflict
        b Remember to water the plants.
        l
        r Remember to water the plants daily.
        m !

        = a paragraph split in two lines on one side, a far word on the other
        b First part of the thought. Second part of the thought.
        l First part of the thought.\nSecond part of the thought.
        r First piece of the thought. Second part of the thought.
        m First piece of the thought.\nSecond part of the thought.

        = a paragraph split in two lines right after the word the other side changed: a conflict
        b First part of the thought. Second part of the thought.
        l First part of the thought.\nSecond part of the thought.
        r First part of the idea. Second part of the thought.
        m !

        = two lines both changed, words apart on each line
        b alpha beta gamma delta\nepsilon zeta eta theta
        l ALPHA beta gamma delta\nepsilon zeta eta THETA
        r alpha beta GAMMA delta\nepsilon ZETA eta theta
        m ALPHA beta GAMMA delta\nepsilon ZETA eta THETA

        = a line added below the paragraph, a word changed in it
        b The list is long.
        l The list is long.\nIt has ten items.
        r The shopping list is long.
        m The shopping list is long.\nIt has ten items.

        = a line added below the paragraph, its last word changed: a conflict (only the full stop between)
        b The list is long.
        l The list is long.\nIt has ten items.
        r The list is short.
        m !

        = a table row: lines only, a conflict
        b | apples | 3 | red |
        l | apples | 4 | red |
        r | apples | 3 | green |
        m !

        = a fence line: lines only, a conflict
        b ```swift
        l ```python
        r ``` swift
        m !
        """#
}
