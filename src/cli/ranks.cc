#include "cli/ranks.h"

#include <memory>

#include "absl/status/status.h"

#ifdef CHAINTAG_HAVE_MPI
#include "mpi/mpi_communicator.h"
#endif

namespace chaintag::cli {
namespace {

std::unique_ptr<Communicator>& World() {
  static auto* world = new std::unique_ptr<Communicator>();
  return *world;
}

}  // namespace

absl::StatusOr<Communicator*> Ranks(bool force) {
#ifdef CHAINTAG_HAVE_MPI
  if (World() == nullptr && (force || LaunchedByMpi())) World() = MakeMpiCommunicator();
  return World().get();
#else
  if (force) {
    return absl::FailedPreconditionError(
        "--mpi: this chaintag was built without MPI (install libboost-mpi-dev, openmpi-bin and "
        "libopenmpi-dev and rebuild)");
  }
  return nullptr;
#endif
}

bool LeadRank(const Communicator* ranks) { return ranks == nullptr || ranks->rank() == 0; }

int EndRanks(int code) {
#ifdef CHAINTAG_HAVE_MPI
  if (code != 0 && IsDistributed(World().get())) AbortMpiJob(code);
#endif
  return code;
}

}  // namespace chaintag::cli
