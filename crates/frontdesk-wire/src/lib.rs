//! frontdesk wire layer.
