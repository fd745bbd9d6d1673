//! Queue-based scheduling of rigid parallel jobs on space-shared machines (FCFS, EASY,
//! conservative and Flexible backfilling), as Singh (2008) and Klusáček & Rudová compare against.
