//! Reading the JSON-RPC messages out of a Streamable HTTP response sent as
//! Server-Sent Events, written once for every test that reads one: a whole body
//! ([`sse_data`]), or a stream read chunk by chunk ([`take_sse_data`]). The event's
//! data is returned as text; the test parses it (and decides what a line that is
//! not JSON means).

/// The data of each event of a whole SSE body, in order: the text after `data: `,
/// the empty data of a priming event left out.
///
/// ```
/// use frontdesk_testkit::sse_data;
///
/// let body = "id: 0\ndata: \n\nid: 1\ndata: {\"id\":1}\n\nid: 2\ndata: {\"id\":2}\n\n";
/// assert_eq!(sse_data(body).collect::<Vec<_>>(), [r#"{"id":1}"#, r#"{"id":2}"#]);
/// ```
pub fn sse_data(body: &str) -> impl DoubleEndedIterator<Item = &str> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| !data.is_empty())
}

/// The data of the next whole event with data in `buffer` (what has arrived of an
/// SSE stream so far), taken out of it with the events before it; `None` when no
/// whole event with data has arrived yet: read more into `buffer` and ask again.
///
/// ```
/// use frontdesk_testkit::take_sse_data;
///
/// let mut buffer = String::from("id: 0\ndata: \n\nid: 1\ndata: {\"id\":1}\n\nid: 2\nda");
/// assert_eq!(take_sse_data(&mut buffer).as_deref(), Some(r#"{"id":1}"#));
/// assert_eq!(take_sse_data(&mut buffer), None);
/// buffer.push_str("ta: {\"id\":2}\n\n");
/// assert_eq!(take_sse_data(&mut buffer).as_deref(), Some(r#"{"id":2}"#));
/// assert!(buffer.is_empty());
/// ```
pub fn take_sse_data(buffer: &mut String) -> Option<String> {
    while let Some(end) = buffer.find("\n\n") {
        let event: String = buffer.drain(..end + 2).collect();
        if let Some(data) = sse_data(&event).next() {
            return Some(data.to_owned());
        }
    }
    None
}
