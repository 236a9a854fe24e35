/// The template of a vault's search results.
extension WebTemplates {
    static let searchPages: [(String, String)] = [("search", search)]

    /// Each result's snippet is HTML made here (``SearchMarks/snippetHTML(_:start:end:)``: the
    /// note's words escaped, the matches in `<mark>`), the one `{{{triple}}}` besides a note's body.
    static let search = """
        {{> header}}
        {{> crumbs}}
        <h1>{{heading}}</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{^error}}<p role="status">{{summary}}</p>{{/error}}
        {{#hasResults}}
        <ol class="results" data-arrow-list aria-label="Notes found">
        {{#results}}<li><a href="{{href}}">{{path}}</a>
        <p class="snippet">{{{snippet}}}</p></li>
        {{/results}}
        </ol>
        <p class="hint">Up and down arrows move between the notes found; Enter opens one at its first match.</p>
        {{/hasResults}}
        {{> footer}}
        """
}
