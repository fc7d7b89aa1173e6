//! frontdesk form layer.
