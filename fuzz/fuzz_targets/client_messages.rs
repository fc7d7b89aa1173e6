#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| frontdesk::fuzzing::client_messages(data));
